/**
 * Throughput of the reader (`tailShard`) and of `shardwal tail`, on the
 * filesystem object store, over a seeded 200,000-row history of keyless log
 * rows (about 165 bytes each) in WAL objects of 2,000 rows:
 *
 * - WAL: the whole history from the WAL (no export);
 * - export + WAL: the first half exported into a segment (export's own
 *   code, dynalite for the table), read from the segment, then the WAL; the
 *   segment (about 16 MB uncompressed) is past the 8 MiB buffer, so it is
 *   verified in one read and streamed in a second; also with a buffer that
 *   holds it (one read);
 * - the CLI: `runTail` writing dump lines to a sink;
 * - two floors: GET, gunzip and split into lines of the same WAL objects
 *   (nothing checked or parsed); GET and `decodeWal` (the WAL reader the
 *   tail calls, which checks every line).
 *
 * Run: `npm run bench:tail` (env BENCH_TAIL_ROWS,
 * default 200000; BENCH_RUNS, default 3, median kept; BENCH_SEED, default 42).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { runTail } from '../lib/cli/tail-run.js';
import { tailShard, tailShardBatches } from '../lib/client/reader/tail-shard.js';
import { exportShard } from '../lib/export/export-shard.js';
import { decodeManifest } from '../lib/manifest/codec.js';
import { ensureTable } from '../lib/memtable/create-table.js';
import { startDynalite } from '../lib/memtable/dynalite-server.js';
import { fenceForRebuild, resetCursors } from '../lib/memtable/reset-cursors.js';
import type { Table } from '../lib/memtable/table.js';
import { logger } from '../lib/observability/telemetry.js';
import { walKey } from '../lib/paths.js';
import { seededRandom } from '../lib/seeded-random.js';
import { FsObjectStore } from '../lib/store/fs-store.js';
import type { ObjectStore } from '../lib/store/object-store.js';
import { decodeWal } from '../lib/wal/decode.js';
import { encodeWal } from '../lib/wal/encode.js';
import type { WalRow } from '../lib/wal/format.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
logger.setLogLevel('SILENT');

const ROWS = Number(process.env.BENCH_TAIL_ROWS ?? 200_000);
const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 3));
const SEED = Number(process.env.BENCH_SEED ?? 42);
const ROWS_PER_OBJECT = 2_000;
const ROWS_PER_BATCH = 100;
const LEVELS = ['debug', 'info', 'info', 'warn', 'error'];
const SERVICES = ['checkout', 'search', 'auth', 'inventory', 'billing'];

/** Writes `count` objects of keyless rows from position `from`; returns bytes written (raw). */
async function writeWal(store: ObjectStore, shard: string, from: number, count: number) {
  const random = seededRandom(SEED + from);
  let raw = 0;
  for (let position = from; position < from + count; position++) {
    const firstRowOffset = position * ROWS_PER_OBJECT;
    const firstSeq = (position * ROWS_PER_OBJECT) / ROWS_PER_BATCH + 1;
    const rows: WalRow[] = Array.from({ length: ROWS_PER_OBJECT }, (_, i) => ({
      seq: firstSeq + Math.floor(i / ROWS_PER_BATCH),
      offset: firstRowOffset + i,
      text: JSON.stringify({
        ts: 1_800_000_000_000 + (firstRowOffset + i) * 3,
        level: LEVELS[Math.floor(random() * LEVELS.length)],
        svc: SERVICES[Math.floor(random() * SERVICES.length)],
        msg: `request served in ${Math.floor(random() * 10_000)} ms`,
        reqId: Math.floor(random() * 2 ** 52).toString(16),
        user: `user-${Math.floor(random() * 100_000)}`,
      }),
    }));
    const bytes = encodeWal({
      header: {
        shard,
        position,
        epoch: 1,
        firstSeq,
        lastSeq: rows.at(-1)!.seq,
        firstRowOffset,
        rowCount: rows.length,
        voidSeqs: [],
        createdAtMs: 1_800_000_000_000,
      },
      rows,
    });
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
  const lastSeq = (objects * ROWS_PER_OBJECT) / ROWS_PER_BATCH;
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

/**
 * The median of `RUNS` timings of `work`, which returns the rows it read:
 * wall-clock rows/s, and rows per CPU second of this process (user +
 * system, zlib's thread pool included), steadier on a shared machine.
 */
async function measure(name: string, work: () => Promise<number>): Promise<void> {
  const times: Array<{ ms: number; cpuMs: number }> = [];
  let rows = 0;
  for (let run = 0; run < RUNS; run++) {
    const cpu = process.cpuUsage();
    const started = performance.now();
    rows = await work();
    const used = process.cpuUsage(cpu);
    times.push({ ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000 });
  }
  const median = (pick: (t: { ms: number; cpuMs: number }) => number) =>
    times.map(pick).sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
  const rate = (ms: number) => Math.round(rows / (ms / 1000)).toLocaleString('en-US');
  const ms = median((t) => t.ms);
  console.log(
    `${name.padEnd(48)} ${rows.toLocaleString('en-US').padStart(9)} rows ${(ms / 1000).toFixed(2).padStart(6)} s ${rate(ms).padStart(10)} rows/s ${rate(median((t) => t.cpuMs)).padStart(10)} rows/CPU-s`,
  );
}

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
  const dynamo = await startDynalite();
  const table = { client: dynamo.client, tableName: 'shardwal' };
  try {
    await ensureTable(table);
    const objects = Math.ceil(ROWS / ROWS_PER_OBJECT);
    const half = Math.floor(objects / 2);
    const raw = await writeWal(store, 'wal', 0, objects);
    console.log(
      `${(objects * ROWS_PER_OBJECT).toLocaleString('en-US')} rows, ${objects} WAL objects, ${(raw / 1e6).toFixed(1)} MB raw; median of ${RUNS} run(s); Node ${process.version}`,
    );
    await measure('floor: GET + gunzip + split lines (WAL)', async () => {
      let lines = 0;
      for (let p = 0; p < objects; p++) {
        const text = gunzipSync((await store.get(walKey('wal', p)))!).toString('utf8');
        lines += text.split('\n').length - 3; // header, trailer, final empty
      }
      return lines;
    });
    await measure('floor: GET + decodeWal (the WAL reader alone)', async () => {
      let rows = 0;
      for (let p = 0; p < objects; p++) {
        const key = walKey('wal', p);
        rows += decodeWal(key, (await store.get(key))!).rows.length;
      }
      return rows;
    });
    await measure('tailShard: WAL only', () => count(tailShard(store, 'wal')));
    await measure('tailShardBatches: WAL only', async () => {
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
        exportRetentionMs: 0,
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
    await measure('tailShard: segment (read twice) + WAL', () => count(tailShard(store, 'exp')));
    await measure('tailShard: segment (held, 64 MiB buffer) + WAL', () =>
      count(tailShard(store, 'exp', { segmentBufferBytes: 64 * 1024 * 1024 })),
    );
    await measure('shardwal tail (runTail to a sink): export + WAL', async () => {
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
  } finally {
    await dynamo.close();
    await rm(root, { recursive: true, force: true });
  }
}

await main();
