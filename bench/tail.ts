/**
 * Throughput of the reader (`tailShard`) and of `shardwal tail`, on the
 * filesystem object store, over a seeded 200,000-row history of keyless log
 * rows (about 165 bytes each) in WAL objects of 2,000 rows, written as the
 * flusher writes them (WAL v3: batches of 100 rows, each encoded by the put
 * path, the object built from their gzip members, `flushedWalObject`):
 *
 * - WAL: the whole history from the WAL (no export);
 * - export + WAL: the first half exported into a segment (export's own
 *   code and segment writer, dynalite for the table), read from the
 *   segment, then the WAL; the segment (about 16 MB uncompressed) is past
 *   the 8 MiB buffer, so it is verified in one read and streamed in a
 *   second; also with a buffer that holds it (one read);
 * - the CLI: `runTail` writing dump lines to a sink.
 *
 * Each against its honest floor, the least work that gives the same rows
 * from the same objects, in the same run, on the same threads: GET,
 * gunzip (where the reader does it: WAL objects on this thread, segments on
 * zlib's pool) and split into lines (strings: the reader yields each row's
 * text) of the objects that read reads, each once. Rounds interleave each figure with its floor;
 * both sides' wall and CPU seconds are medians, and floor ÷ actual the
 * median of the rounds' ratios (1.00× = at the floor; the goal is >= 0.7×).
 *
 * Run: `npm run bench:tail` (env BENCH_TAIL_ROWS,
 * default 200000; BENCH_RUNS, default 3, at least 3; BENCH_SEED, default 42).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { gunzip, gunzipSync } from 'node:zlib';
import { runTail } from '../lib/cli/tail-run.js';
import { tailShard, tailShardBatches } from '../lib/client/reader/tail-shard.js';
import { exportShard } from '../lib/export/export-shard.js';
import { decodeManifest } from '../lib/manifest/codec.js';
import { ensureTable } from '../lib/memtable/create-table.js';
import { fenceForRebuild, resetCursors } from '../lib/memtable/reset-cursors.js';
import type { Table } from '../lib/memtable/table.js';
import { logger } from '../lib/observability/telemetry.js';
import { walKey } from '../lib/paths.js';
import type { Row } from '../lib/rows/row.js';
import { seededRandom } from '../lib/seeded-random.js';
import { segmentKey } from '../lib/segment/format.js';
import { FsObjectStore } from '../lib/store/fs-store.js';
import type { ObjectStore } from '../lib/store/object-store.js';
import { flushedWalObject, startDynaliteProcess } from './support.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
logger.setLogLevel('SILENT');

const ROWS = Number(process.env.BENCH_TAIL_ROWS ?? 200_000);
const RUNS = Math.max(3, Number(process.env.BENCH_RUNS ?? 3));
const SEED = Number(process.env.BENCH_SEED ?? 42);
const ROWS_PER_OBJECT = 2_000;
const ROWS_PER_BATCH = 100;
const BATCHES_PER_OBJECT = ROWS_PER_OBJECT / ROWS_PER_BATCH;
const LEVELS = ['debug', 'info', 'info', 'warn', 'error'];
const SERVICES = ['checkout', 'search', 'auth', 'inventory', 'billing'];

/** Writes `count` objects of keyless rows from position `from`; returns bytes written (raw). */
async function writeWal(store: ObjectStore, shard: string, from: number, count: number) {
  const random = seededRandom(SEED + from);
  let raw = 0;
  for (let position = from; position < from + count; position++) {
    const firstRowOffset = position * ROWS_PER_OBJECT;
    const batches: Row[][] = Array.from({ length: BATCHES_PER_OBJECT }, (_, b) =>
      Array.from({ length: ROWS_PER_BATCH }, (_, i) => ({
        text: JSON.stringify({
          ts: 1_800_000_000_000 + (firstRowOffset + b * ROWS_PER_BATCH + i) * 3,
          level: LEVELS[Math.floor(random() * LEVELS.length)],
          svc: SERVICES[Math.floor(random() * SERVICES.length)],
          msg: `request served in ${Math.floor(random() * 10_000)} ms`,
          reqId: Math.floor(random() * 2 ** 52).toString(16),
          user: `user-${Math.floor(random() * 100_000)}`,
        }),
      })),
    );
    const bytes = flushedWalObject(
      shard,
      position,
      position * BATCHES_PER_OBJECT + 1,
      firstRowOffset,
      batches,
      1_800_000_000_000,
    );
    raw += gunzipSync(bytes).length;
    await store.putIfAbsent(walKey(shard, position), bytes);
  }
  return raw;
}

/** Sets the shard record to `objects` WAL objects, as export expects to find it. */
async function setRecord(table: Table, shard: string, objects: number, watermark: number) {
  const fenced = await fenceForRebuild(table, shard, {
    owner: 'bench',
    nowMs: Date.now(),
    leaseMs: 60_000,
    reason: 'bench setup',
  });
  const lastSeq = objects * BATCHES_PER_OBJECT;
  await resetCursors(table, shard, {
    epoch: fenced.epoch,
    durableSeq: lastSeq,
    walNextPos: objects,
    nextRowOffset: objects * ROWS_PER_OBJECT,
    nextSeq: lastSeq + 1,
    releasedBytes: 0,
    generation: fenced.generation,
    aofWatermark: watermark,
    nowMs: Date.now(),
  });
}

/** One timed call: wall and CPU ms (this process, zlib's pool included), and the rows it read. */
interface Timing {
  ms: number;
  cpuMs: number;
  rows: number;
}

async function timed(work: () => Promise<number>): Promise<Timing> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const rows = await work();
  const used = process.cpuUsage(cpu);
  return { ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000, rows };
}

const mid = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * `RUNS` rounds of `work` and its `floor` in turn: both sides' median wall
 * and CPU seconds, and the median of the rounds' floor ÷ actual.
 */
async function measure(
  name: string,
  floor: () => Promise<number>,
  work: () => Promise<number>,
): Promise<void> {
  const rounds: Array<{ floor: Timing; actual: Timing }> = [];
  for (let run = 0; run < RUNS; run++) {
    const base = await timed(floor);
    const actual = await timed(work);
    if (base.rows !== actual.rows) {
      throw new Error(`${name}: the floor split ${base.rows} rows, the reader read ${actual.rows}`);
    }
    rounds.push({ floor: base, actual });
  }
  const median = (side: 'floor' | 'actual', time: 'ms' | 'cpuMs') =>
    mid(rounds.map((r) => r[side][time])) / 1000;
  const ratio = (time: 'ms' | 'cpuMs') => mid(rounds.map((r) => r.floor[time] / r.actual[time]));
  const rows = rounds[0]!.actual.rows;
  const wall = median('actual', 'ms');
  console.log(
    `${name.padEnd(48)} ${rows.toLocaleString('en-US').padStart(9)} ${Math.round(rows / wall)
      .toLocaleString('en-US')
      .padStart(
        10,
      )} ${wall.toFixed(2).padStart(6)} ${median('floor', 'ms').toFixed(2).padStart(6)} ${ratio('ms').toFixed(2).padStart(5)}× ${median('actual', 'cpuMs').toFixed(2).padStart(6)} ${median('floor', 'cpuMs').toFixed(2).padStart(6)} ${ratio('cpuMs').toFixed(2).padStart(5)}×`,
  );
}

const gunzipOnPool = promisify(gunzip);

/**
 * The floor: GET and gunzip each of `keys` and split its text into lines,
 * as strings; returns the lines that are rows (`notRows(index)` says how
 * many of an object's lines are not: a WAL object's header, frames and
 * trailer, a manifest's every line). Each object is gunzipped where the
 * reader gunzips it: WAL objects and the manifest whole on this thread
 * (`decodeWal`, `decodeManifest`), segments on zlib's pool (`onPool(i)`),
 * the next while the current one is split.
 */
async function splitFloor(
  store: ObjectStore,
  keys: readonly string[],
  notRows: (index: number) => number,
  onPool: (index: number) => boolean = () => false,
): Promise<number> {
  const open = async (i: number) => {
    const bytes = (await store.get(keys[i]!))!;
    return onPool(i) ? gunzipOnPool(bytes, { chunkSize: 256 * 1024 }) : gunzipSync(bytes);
  };
  let next = keys.length > 0 ? open(0) : undefined;
  let rows = 0;
  for (let i = 0; i < keys.length; i++) {
    const text = await next!;
    next = i + 1 < keys.length ? open(i + 1) : undefined;
    rows += text.toString('utf8').split('\n').length - 1 - notRows(i);
  }
  return rows;
}

/** Lines of a v3 WAL object of this bench that are not rows: header, one frame per batch, trailer. */
const WAL_NOT_ROWS = 2 + BATCHES_PER_OBJECT;

async function count(rows: AsyncIterable<unknown>): Promise<number> {
  let n = 0;
  for await (const _ of rows) n++;
  return n;
}

const sink = () =>
  new Writable({
    write(_chunk, _encoding, done) {
      done();
    },
  });

async function main() {
  const root = await mkdtemp(join(tmpdir(), 'shardwal-tail-bench-'));
  const objectsDir = join(root, 'objects');
  const store = new FsObjectStore(objectsDir);
  const dynamo = await startDynaliteProcess();
  const table = { client: dynamo.client, tableName: 'shardwal' };
  try {
    await ensureTable(table);
    const objects = Math.ceil(ROWS / ROWS_PER_OBJECT);
    const half = Math.floor(objects / 2);
    const raw = await writeWal(store, 'wal', 0, objects);
    console.log(
      `${(objects * ROWS_PER_OBJECT).toLocaleString('en-US')} rows, ${objects} WAL v3 objects, ${(raw / 1e6).toFixed(1)} MB raw; ${RUNS} rounds, medians; Node ${process.version}`,
    );
    console.log(
      `${''.padEnd(48)} ${'rows'.padStart(9)} ${'rows/s'.padStart(10)} ${'wall s'.padStart(6)} ${'floor'.padStart(6)} ${'f÷a'.padStart(6)} ${'CPU s'.padStart(6)} ${'floor'.padStart(6)} ${'f÷a'.padStart(6)}`,
    );
    const walKeys = (shard: string, from: number, to: number) =>
      Array.from({ length: to - from }, (_, i) => walKey(shard, from + i));
    const walFloor = () => splitFloor(store, walKeys('wal', 0, objects), () => WAL_NOT_ROWS);
    await measure('tailShard: WAL only', walFloor, () => count(tailShard(store, 'wal')));
    await measure('tailShardBatches: WAL only', walFloor, async () => {
      let rows = 0;
      for await (const batch of tailShardBatches(store, 'wal')) rows += batch.length;
      return rows;
    });

    await writeWal(store, 'exp', 0, half);
    await setRecord(table, 'exp', half, 0);
    const report = await exportShard(
      {
        table,
        store,
        now: Date.now,
        walRetentionMs: 0,
        // Retention does not run here (retention: false), but the export's deadline is half of
        // this: a week, so a slow shared machine cannot fail the export's setup.
        exportRetentionMs: 7 * 24 * 3600 * 1000,
        historyRetentionMs: 0,
      },
      'exp',
      { retention: false },
    );
    if (report.status !== 'exported') throw new Error(`export ${report.status}: ${report.reason}`);
    const manifest = decodeManifest(report.key!, (await store.get(report.key!))!);
    const segments = manifest.segments.map((ref) => `${(ref.rawBytes / 1e6).toFixed(1)} MB`);
    console.log(
      `export: ${manifest.header.keylessRows} rows in segment(s) of ${segments.join(', ')} raw`,
    );
    await writeWal(store, 'exp', half, objects - half);
    await setRecord(table, 'exp', objects, half);
    // The manifest, each segment once, then the WAL after the export.
    const segmentKeys = manifest.segments.map((ref) => segmentKey('exp', ref.first));
    const expKeys = [report.key!, ...segmentKeys, ...walKeys('exp', half, objects)];
    // The manifest holds no row: all its lines are left out of the count.
    const manifestLines =
      gunzipSync((await store.get(report.key!))!)
        .toString('utf8')
        .split('\n').length - 1;
    const expFloor = () =>
      splitFloor(
        store,
        expKeys,
        (i) => (i === 0 ? manifestLines : i <= segmentKeys.length ? 0 : WAL_NOT_ROWS),
        (i) => i > 0 && i <= segmentKeys.length,
      );
    await measure('tailShard: segment (read twice) + WAL', expFloor, () =>
      count(tailShard(store, 'exp')),
    );
    await measure('tailShard: segment (held, 64 MiB buffer) + WAL', expFloor, () =>
      count(tailShard(store, 'exp', { segmentBufferBytes: 64 * 1024 * 1024 })),
    );
    await measure('shardwal tail (runTail to a sink): export + WAL', expFloor, async () => {
      const stdout = sink();
      let lines = 0;
      const original = stdout.write.bind(stdout);
      stdout.write = ((chunk: string, ...rest: never[]) => {
        for (let i = chunk.indexOf('\n'); i !== -1; i = chunk.indexOf('\n', i + 1)) lines++;
        return original(chunk, ...rest);
      }) as typeof stdout.write;
      await runTail(
        { args: ['exp'], options: { 'data-dir': root } },
        { stdout, stderr: sink(), env: process.env, cwd: process.cwd() },
      );
      return lines;
    });
    console.log(
      "floor: GET + gunzip + split into line strings of the objects the read reads, each once (the manifest, each segment, the WAL after the export), each gunzipped where the reader does it (WAL and manifest on this thread, segments on zlib's pool); shardwal tail also formats and writes each dump line",
    );
  } finally {
    await dynamo.close();
    await rm(root, { recursive: true, force: true });
  }
}

await main();
