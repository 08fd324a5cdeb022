/**
 * The baseline shardwal is measured against: every put allocates a seq and
 * appends its own WAL object to the object store at once (one S3 PUT per
 * put). Correct ordering aside, this is what "durable on every put" costs.
 */
import { allocateSeq } from '../lib/memtable/allocate.js';
import { walKey } from '../lib/paths.js';
import type { PutDeps } from '../lib/put/put-rows.js';
import type { ObjectStore } from '../lib/store/object-store.js';
import { encodeWal } from '../lib/wal/encode.js';
import type { JsonObject, WalRow } from '../lib/wal/format.js';

/** Allocates a seq, then writes one WAL object holding just this put. */
export async function naivePut(
  deps: PutDeps,
  store: ObjectStore,
  shard: string,
  rows: JsonObject[],
) {
  const bytes = Buffer.byteLength(JSON.stringify(rows));
  const { seq } = await allocateSeq(deps.table, {
    shard,
    bytes: 0,
    nowMs: deps.now(),
    maxBufferedBytes: deps.config.maxBufferedBytes,
    retryAfterSeconds: 1,
  });
  const object = encodeWal({
    header: {
      shard,
      position: seq - 1,
      epoch: 0,
      firstSeq: seq,
      lastSeq: seq,
      firstRowOffset: 0,
      rowCount: rows.length,
      voidSeqs: [],
      createdAtMs: deps.now(),
    },
    rows: rows.map((row, i): WalRow => ({ seq, offset: i, text: JSON.stringify(row) })),
  });
  await store.putIfAbsent(walKey(shard, seq - 1), object);
  return { seq, bytes };
}
