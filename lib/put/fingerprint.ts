/**
 * The fingerprint stored with an idempotency key (K5 in
 * `lib/memtable/idempotency.ts`): SHA-256 over the shard, the key field and
 * the rows as the batch stores them, so two requests that would buffer the
 * same rows match and any other payload does not.
 */
import { createHash } from 'node:crypto';

/** Hex SHA-256 of what a put would buffer. */
export function requestFingerprint(shard: string, rowsText: string | Uint8Array): string {
  return createHash('sha256').update(`shardwal-put-v1\n${shard}\n`).update(rowsText).digest('hex');
}
