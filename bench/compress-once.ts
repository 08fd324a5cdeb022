/**
 * `npm run bench:compress`: what compressing every byte once saves, on the
 * real code. Seeded puts of 100 event-like 1 KB rows (`bench/cost/rows.ts`):
 *
 *   - put CPU per row: the put path's batch encoding (`encodeBatchRows`, row
 *     lines + gzip at `BATCH_GZIP_LEVEL`) beside the same row lines gzipped
 *     at level 6 (the level before it was chosen by cost);
 *   - flusher CPU per MB of batches (uncompressed row bytes): the v3 object
 *     built from the batches' members as they are (`buildWalObject`) beside
 *     the v2 path the flusher took before: gunzip every batch
 *     (`decodeBatchRows`), then `encodeWal` (row lines, gzip level 6).
 *
 * Both sides run in the same process, interleaved, best of `passes`; CPU is
 * `process.cpuUsage` (user + system), so compare the ratios within a run.
 *
 *   node --import tsx bench/compress-once.ts [puts per object] [objects] [passes]
 */
import { gzipSync } from 'node:zlib';
import { buildWalObject } from '../lib/flush/build-wal-object.js';
import {
  BATCH_ENCODING,
  BATCH_GZIP_LEVEL,
  decodeBatchRows,
  encodeBatchRows,
} from '../lib/memtable/batch-codec.js';
import type { StoredBatch } from '../lib/memtable/read-batches.js';
import type { ShardRecord } from '../lib/memtable/shard-record.js';
import { parsePutValue } from '../lib/put/schema.js';
import { encodeWal } from '../lib/wal/encode.js';
import type { WalRow } from '../lib/wal/format.js';
import { RowVariant, rowGenerator } from './cost/rows.js';

const PUTS = Number(process.argv[2] ?? 50);
const OBJECTS = Number(process.argv[3] ?? 8);
const PASSES = Number(process.argv[4] ?? 5);
const ROWS_PER_PUT = 100;

function cpuMs(fn: () => void): number {
  const start = process.cpuUsage();
  fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

function best(fn: () => void): number {
  let min = Number.POSITIVE_INFINITY;
  for (let pass = 0; pass < PASSES; pass++) min = Math.min(min, cpuMs(fn));
  return min;
}

function main(): void {
  const generator = rowGenerator({ variant: RowVariant.event, seed: 11 });
  const bodies = Array.from({ length: PUTS * OBJECTS }, () =>
    parsePutValue({ rows: generator.take(ROWS_PER_PUT) }, 10_000),
  );
  const rows = bodies.length * ROWS_PER_PUT;

  // Put path: one batch encoding per put.
  const encoded = bodies.map((body) => encodeBatchRows(body.rows));
  const putAfter = best(() => {
    for (const body of bodies) encodeBatchRows(body.rows);
  });
  // The two sides differ only in the gzip level of the same row lines.
  const gzip6 = best(() => {
    for (const batch of encoded) gzipSync(batch.json, { level: 6 });
  });
  const gzipNow = best(() => {
    for (const batch of encoded) gzipSync(batch.json, { level: BATCH_GZIP_LEVEL });
  });
  const putBefore = putAfter - gzipNow + gzip6;

  // Flusher: OBJECTS WAL objects of PUTS batches each, from the batches as the memtable returns them.
  const objects: StoredBatch[][] = [];
  for (let o = 0; o < OBJECTS; o++) {
    objects.push(
      encoded.slice(o * PUTS, (o + 1) * PUTS).map((batch, i) => storedBatch(i + 1, batch)),
    );
  }
  const batchBytes = encoded.reduce((sum, batch) => sum + batch.jsonBytes, 0);
  const record = (o: number): ShardRecord =>
    ({ shard: 'bench', walNextPos: o, nextRowOffset: o * PUTS * ROWS_PER_PUT }) as ShardRecord;
  const flushAfter = best(() => {
    for (const [o, batches] of objects.entries())
      buildWalObject(record(o), 1, batches, 1_800_000_000_000);
  });
  const flushBefore = best(() => {
    for (const [o, batches] of objects.entries())
      encodeWal(previousFlusherObject(record(o), batches));
  });
  const sizeAfter = objects.reduce(
    (sum, batches, o) => sum + buildWalObject(record(o), 1, batches, 0).body.length,
    0,
  );
  const sizeBefore = objects.reduce(
    (sum, batches, o) => sum + encodeWal(previousFlusherObject(record(o), batches)).length,
    0,
  );

  const mb = batchBytes / 1e6;
  console.log(
    `compress once: ${bodies.length} puts of ${ROWS_PER_PUT} event rows (${(batchBytes / bodies.length / 1024).toFixed(1)} KiB each), ${OBJECTS} WAL objects of ${PUTS} batches; CPU ms, best of ${PASSES} (shared machine: compare within the run)`,
  );
  console.log(
    `put CPU per row (batch encoding): before (gzip 6) ${((putBefore / rows) * 1000).toFixed(2)} µs   after (gzip ${BATCH_GZIP_LEVEL}) ${((putAfter / rows) * 1000).toFixed(2)} µs   (the gzip alone: ${((gzip6 / rows) * 1000).toFixed(2)} and ${((gzipNow / rows) * 1000).toFixed(2)} µs)`,
  );
  console.log(
    `flusher CPU per MB:     before (gunzip + gzip 6, v2) ${(flushBefore / mb).toFixed(2)} ms   after (members as they are, v3) ${(flushAfter / mb).toFixed(2)} ms   (${(flushBefore / flushAfter).toFixed(1)}x less)`,
  );
  console.log(
    `WAL bytes per MB:       before ${(sizeBefore / mb / 1024).toFixed(1)} KiB   after ${(sizeAfter / mb / 1024).toFixed(1)} KiB`,
  );
}

function storedBatch(seq: number, batch: ReturnType<typeof encodeBatchRows>): StoredBatch {
  let rows: ReturnType<typeof decodeBatchRows> | undefined;
  return {
    seq,
    kind: 'rows',
    get rows() {
      rows ??= decodeBatchRows(`batch ${seq}`, [batch.compressed], BATCH_ENCODING);
      return rows;
    },
    rowCount: batch.rowCount,
    bytes: batch.jsonBytes,
    payload: batch.compressed,
    encoding: BATCH_ENCODING,
    createdAtMs: 1_800_000_000_000,
    chargeEnd: undefined,
    allocatedAtMs: undefined,
    itemKeys: [],
  };
}

/** The object the flusher built before v3: every batch decoded into rows. */
function previousFlusherObject(record: ShardRecord, batches: StoredBatch[]) {
  const rows: WalRow[] = [];
  for (const batch of batches) {
    if (batch.kind !== 'rows') continue;
    const decoded = decodeBatchRows(`batch ${batch.seq}`, [batch.payload], batch.encoding);
    for (const row of decoded)
      rows.push({ seq: batch.seq, offset: record.nextRowOffset + rows.length, ...row });
  }
  return {
    header: {
      shard: record.shard,
      position: record.walNextPos,
      epoch: 1,
      firstSeq: batches[0]!.seq,
      lastSeq: batches.at(-1)!.seq,
      firstRowOffset: record.nextRowOffset,
      rowCount: rows.length,
      voidSeqs: [],
      createdAtMs: 1_800_000_000_000,
    },
    rows,
  };
}

main();
