/**
 * The shard registry: a second sparse GSI (`registry`: `registryPk`,
 * `registryShard`, keys only) that holds exactly the shard records, so export
 * and verify find every shard with a Query whose cost follows the number of
 * shards, not the items of the table (batches, idempotency records).
 *
 * Invariants:
 * G1. The entry is written by the allocation update that creates the shard
 *     record (`allocate.ts`), in the same item write, and by rebuild's fence
 *     (a record created by recovery after a table loss): no crash can leave a
 *     shard record without it. Every later allocation sets the same values,
 *     which DynamoDB does not write to the index again.
 * G2. Records created before the registry existed are registered once by a
 *     backfill (`list-shards.ts`), after which a marker item records that it
 *     ran; until then the listing is backfilled first.
 * G3. The index is eventually consistent: a shard whose first put landed
 *     moments ago may miss one run and is found by the next.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';

/** Name of the registry index. */
export const REGISTRY_INDEX = 'registry';
/** The single partition value of the registry index. */
export const REGISTRY_PK = 'shards';
/** Attribute names of the registry entry on a shard record. */
export const REGISTRY_ATTRIBUTES = { partition: 'registryPk', shard: 'registryShard' } as const;

/** The `SET` clause and values that register `shard` on its record (G1). */
export function registryEntry(shard: string): {
  set: string;
  values: Record<string, AttributeValue>;
} {
  return {
    set: `${REGISTRY_ATTRIBUTES.partition} = :registryPk, ${REGISTRY_ATTRIBUTES.shard} = :registryShard`,
    values: { ':registryPk': { S: REGISTRY_PK }, ':registryShard': { S: shard } },
  };
}
