/** A batching producer over HTTP puts: `BatchingProducer` whose batches are `client.putRowTexts`. */
import { randomUUID } from 'node:crypto';
import type { PutAck } from './api-types.js';
import type { ShardwalHttpClient } from './http-client.js';
import { BatchingProducer, type ProducerOptions } from './producer.js';
import { frameOverheadBytes } from './put-body.js';

/** Options of `createHttpProducer`. */
export interface HttpProducerOptions
  extends Partial<Omit<ProducerOptions<PutAck>, 'lingerMs' | 'maxInFlight'>> {
  /** Name of the field that keys every row. */
  keyField?: string;
  /** Ask every put to wait for durability. */
  durable?: boolean;
  /** Default 20 ms; `null` sends a batch only when full or flushed. */
  lingerMs?: number | null;
  /** Default 4, or 1 with `keyField` (keyed rows must land in order). */
  maxInFlight?: number;
  /** Default: on with `keyField` (see `ProducerOptions`). */
  stopOnFailure?: boolean;
}

/**
 * Defaults. 512 KiB bodies stay well inside the service's 1 MiB default
 * limit (`SHARDWAL_MAX_BODY_BYTES`), 500 rows inside its 10,000.
 */
export const HTTP_PRODUCER_DEFAULTS = {
  maxBatchRows: 500,
  maxBatchBytes: 512 * 1024,
  lingerMs: 20,
  maxInFlight: 4,
} as const;

/** A producer of rows into `shard` through `client`. */
export function createHttpProducer(
  client: ShardwalHttpClient,
  shard: string,
  options: HttpProducerOptions = {},
): BatchingProducer<PutAck> {
  const { keyField, durable } = options;
  const lingerMs =
    options.lingerMs === null ? undefined : (options.lingerMs ?? HTTP_PRODUCER_DEFAULTS.lingerMs);
  return new BatchingProducer<PutAck>(
    (batch) => client.putRowTexts(shard, batch.rowTexts, { key: batch.key, keyField, durable }),
    {
      maxBatchRows: options.maxBatchRows ?? HTTP_PRODUCER_DEFAULTS.maxBatchRows,
      maxBatchBytes: options.maxBatchBytes ?? HTTP_PRODUCER_DEFAULTS.maxBatchBytes,
      lingerMs,
      maxInFlight:
        options.maxInFlight ?? (keyField === undefined ? HTTP_PRODUCER_DEFAULTS.maxInFlight : 1),
      keyPrefix: options.keyPrefix ?? randomUUID(),
      stopOnFailure: options.stopOnFailure ?? keyField !== undefined,
      keyOf: options.keyOf,
      onBatch: options.onBatch,
    },
    { overheadBytes: frameOverheadBytes({ keyField }) },
  );
}
