/**
 * `npm run bench:recovery`: what recovery and export cost, on the filesystem
 * object store (dynalite for the table), in three parts:
 *
 * A. Throughput beside honest floors, each the least work that gives the
 *    same output from the same input, in the same run, on the same thread
 *    pool: a rebuild of the whole WAL (and one from a manifest plus a 20 %
 *    WAL tail) against reading, gunzipping (zlib's pool, one object ahead,
 *    as replay does) and splitting into lines the objects it reads; an
 *    export of the whole WAL into segments, snapshot parts and a manifest
 *    against that read floor plus the gzip of the export's own output text
 *    (the same members on the same pool, `lib/store/gzip-members.ts`).
 *    BENCH_RUNS rounds in this process, each figure and its floor in turn
 *    (a slow stretch of the shared machine slows both); both sides' wall
 *    and CPU seconds are the medians over the rounds, and floor ÷ actual
 *    the median of the rounds' ratios (1.00× = at the floor; goals: rebuild
 *    >= 0.7×, export >= 0.8×).
 * B. History: one shard with a fixed set of live keys, exported again after
 *    every step while its keyless history grows 10x. Each export's time,
 *    bytes written and peak memory must stay flat (the last within 1.5x the
 *    first): an export costs O(new data), not O(history). BENCH_RUNS
 *    histories, medians printed.
 * C. Memory: an export and a rebuild of a shard whose raw WAL is several
 *    times the child process's V8 heap cap.
 *
 * dynalite runs in a child process: its CPU is not counted as the rebuild's
 * or the export's (in AWS, DynamoDB's work is not the caller's).
 *
 * The WAL objects are written as the flusher writes them (WAL v3: each
 * batch encoded by the put path, the object built from those gzip members,
 * `flushedWalObject`; seeded data, 2,000 rows per object in batches of 100), and the shard record is then set to
 * match them with the library's own cursor reset (`fenceForRebuild` +
 * `resetCursors`), so export and rebuild see a consistent shard.
 *
 * Env: BENCH_RECOVERY_ROWS (throughput shard, default 300000),
 * BENCH_RECOVERY_STEP_ROWS (history step, default 100000; 0 skips B),
 * BENCH_RECOVERY_MEMORY_ROWS (memory shard, default 2000000; 0 skips C),
 * BENCH_RECOVERY_HEAP_MB (child's --max-old-space-size, default 96),
 * BENCH_RUNS (runs per throughput figure, median kept, default 5), BENCH_SEED (default 42),
 * BENCH_RECOVERY_GZIP_LEVEL (the exports' gzip level, default the library's: to see
 * what compressing segments and parts costs).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gunzip, gunzipSync } from 'node:zlib';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { emulatorClientOptions } from '../lib/emulator-options.js';
import { exportShard } from '../lib/export/export-shard.js';
import { manifestPrefix } from '../lib/manifest/format.js';
import { ensureTable } from '../lib/memtable/create-table.js';
import { fenceForRebuild, resetCursors } from '../lib/memtable/reset-cursors.js';
import type { Table } from '../lib/memtable/table.js';
import { logger } from '../lib/observability/telemetry.js';
import { walKey } from '../lib/paths.js';
import { rebuildShard } from '../lib/recovery/rebuild.js';
import type { Row } from '../lib/rows/row.js';
import { segmentPrefix } from '../lib/segment/format.js';
import { snapshotPrefix } from '../lib/snapshot/format.js';
import { FsObjectStore } from '../lib/store/fs-store.js';
import { BATCH_BYTES, MEMBERS_IN_FLIGHT } from '../lib/store/gzip-lines.js';
import { GzipMembers } from '../lib/store/gzip-members.js';
import type { JsonObject } from '../lib/wal/format.js';
import { FRAME_GZIP_LEVEL } from '../lib/wal/framing.js';
import { flushedWalObject, seededRandom, startDynaliteProcess } from './support.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
logger.setLogLevel('SILENT');

const ROWS = Number(process.env.BENCH_RECOVERY_ROWS ?? 300_000);
const STEP_ROWS = Number(process.env.BENCH_RECOVERY_STEP_ROWS ?? 100_000);
const STEPS = 10;
const MEMORY_ROWS = Number(process.env.BENCH_RECOVERY_MEMORY_ROWS ?? 2_000_000);
const HEAP_MB = Number(process.env.BENCH_RECOVERY_HEAP_MB ?? 96);
const SEED = Number(process.env.BENCH_SEED ?? 42);
const GZIP_LEVEL = process.env.BENCH_RECOVERY_GZIP_LEVEL;
const RUNS = Math.max(3, Number(process.env.BENCH_RUNS ?? 5));
const ROWS_PER_OBJECT = 2_000;
const ROWS_PER_BATCH = 100;
const LIVE_KEYS = 20_000;
const KEYED_SHARE = 0.3;

const LEVELS = ['debug', 'info', 'info', 'info', 'warn', 'error'];
const SERVICES = ['checkout', 'search', 'auth', 'inventory', 'billing', 'shipping', 'profile'];
const TEMPLATES = [
  'request served in %d ms',
  'cache miss for item %d',
  'retrying upstream call, attempt %d',
  'user session refreshed after %d s',
  'queue depth is %d',
  'payment authorized for order %d',
];

/** What the writer produced. */
interface ShardLayout {
  objects: number;
  rows: number;
  lastSeq: number;
  rawBytes: number;
  storedBytes: number;
}

/** Writes `rows` rows as WAL objects from `first` on (position, seq, offset continue from it), as the flusher writes them (v3). */
async function writeWal(
  store: FsObjectStore,
  shard: string,
  rows: number,
  random: () => number,
  first: ShardLayout = { objects: 0, rows: 0, lastSeq: 0, rawBytes: 0, storedBytes: 0 },
): Promise<ShardLayout> {
  const layout = { ...first };
  for (let written = 0; written < rows; ) {
    const count = Math.min(ROWS_PER_OBJECT, rows - written);
    const batches: Row[][] = [];
    for (let i = 0; i < count; i++) {
      if (i % ROWS_PER_BATCH === 0) batches.push([]);
      batches.at(-1)!.push(makeRow(random, layout.rows + i));
    }
    const bytes = flushedWalObject(
      shard,
      layout.objects,
      layout.lastSeq + 1,
      layout.rows,
      batches,
      1_800_000_000_000 + layout.objects * 1000,
    );
    await store.putIfAbsent(walKey(shard, layout.objects), bytes);
    layout.rawBytes += gunzipSync(bytes).length;
    layout.storedBytes += bytes.length;
    layout.objects += 1;
    layout.rows += count;
    layout.lastSeq += batches.length;
    written += count;
  }
  return layout;
}

function makeRow(random: () => number, offset: number): Row {
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  if (random() < KEYED_SHARE) {
    const key = `user-${Math.floor(random() * LIVE_KEYS)}`;
    if (random() < 0.05) return { key: JSON.stringify(key), delete: true };
    const row: JsonObject = {
      id: key,
      balance: Math.floor(random() * 1e6) / 100,
      tier: pick(['free', 'pro', 'team', 'enterprise']),
      updatedAt: 1_800_000_000_000 + offset,
      tags: [pick(SERVICES), pick(SERVICES)],
    };
    return { key: JSON.stringify(key), text: JSON.stringify(row) };
  }
  return {
    text: JSON.stringify({
      ts: 1_800_000_000_000 + offset * 3,
      level: pick(LEVELS),
      svc: pick(SERVICES),
      msg: pick(TEMPLATES).replace('%d', String(Math.floor(random() * 10_000))),
      reqId: Math.floor(random() * 2 ** 52)
        .toString(16)
        .padStart(13, '0'),
      user: `user-${Math.floor(random() * 100_000)}`,
    }),
  };
}

/** Sets the shard record to what `layout` holds, with the library's own cursor reset. */
async function setRecord(
  table: Table,
  shard: string,
  layout: ShardLayout,
  aofWatermark: number,
): Promise<void> {
  const fenced = await fenceForRebuild(table, shard, {
    owner: 'bench',
    nowMs: Date.now(),
    leaseMs: 60_000,
    reason: 'bench setup',
  });
  const after = await resetCursors(table, shard, {
    epoch: fenced.epoch,
    durableSeq: layout.lastSeq,
    walNextPos: layout.objects,
    nextRowOffset: layout.rows,
    nextSeq: layout.lastSeq + 1,
    releasedBytes: 0,
    generation: fenced.generation,
    aofWatermark,
    nowMs: Date.now(),
  });
  if (!after) throw new Error('bench setup: the cursor reset was fenced out');
}

const gunzipOnPool = promisify(gunzip);
/** Decompressed bytes per zlib step, as replay reads (`lib/wal/frame-reader.ts`). */
const GUNZIP_CHUNK_BYTES = 256 * 1024;

/** The stored bytes at `key` of the filesystem store rooted at `dir`. */
const readKey = (dir: string, key: string) => readFile(join(dir, ...key.split('/')));

/**
 * Reads and gunzips the objects at `keys` in order on zlib's thread pool,
 * the next one while `each` takes the current one's text (as replay and
 * export read the WAL: one object ahead).
 */
async function eachGunzipped(
  dir: string,
  keys: readonly string[],
  each: (text: Buffer, index: number) => Promise<void> | undefined,
): Promise<void> {
  const open = (i: number) =>
    readKey(dir, keys[i]!).then((bytes) => gunzipOnPool(bytes, { chunkSize: GUNZIP_CHUNK_BYTES }));
  let next = keys.length > 0 ? open(0) : undefined;
  for (let i = 0; i < keys.length; i++) {
    const text = await next!;
    next = i + 1 < keys.length ? open(i + 1) : undefined;
    await each(text, i);
  }
}

/** Splits `text` into lines (finds every `\n`); returns how many. No string is made: replay makes none for a keyless row. */
function splitLines(text: Buffer): number {
  let lines = 0;
  for (let nl = text.indexOf(0x0a); nl !== -1; nl = text.indexOf(0x0a, nl + 1)) lines += 1;
  return lines;
}

/** The rebuild's floor: read + gunzip (zlib's pool, one object ahead) + split into lines of `keys`. */
async function readFloor(dir: string, keys: readonly string[]): Promise<number> {
  let lines = 0;
  await eachGunzipped(dir, keys, (text) => {
    lines += splitLines(text);
    return undefined;
  });
  return lines;
}

/**
 * The export's floor: `readFloor` of the same WAL objects, plus the gzip of
 * the export's own output text (`output`: its segments, snapshot parts and
 * manifest, decompressed) the way the export compresses it: members of
 * `BATCH_BYTES` on zlib's pool, `MEMBERS_IN_FLIGHT` at once, at the export's
 * level, pushed as the reading progresses (so they overlap, as in the export),
 * and written to the store as one object. Nothing is parsed or transformed.
 */
async function exportFloor(
  dir: string,
  store: FsObjectStore,
  keys: readonly string[],
  output: Buffer,
  level: number,
): Promise<number> {
  const members = new GzipMembers(level, MEMBERS_IN_FLIGHT);
  const written = store.putStreamIfAbsent('bench/export-floor', members.members());
  let pushed = 0;
  let lines = 0;
  const pushUpTo = async (end: number) => {
    for (; pushed < end; pushed = Math.min(end, pushed + BATCH_BYTES)) {
      await members.room();
      members.push(output.subarray(pushed, Math.min(end, pushed + BATCH_BYTES)));
    }
  };
  await eachGunzipped(dir, keys, (text, i) => {
    lines += splitLines(text);
    // Whole members only, until the last object: the export pushes a member once it is full.
    const due = Math.floor(((i + 1) / keys.length) * output.length);
    return pushUpTo(i + 1 === keys.length ? due : due - (due % BATCH_BYTES));
  });
  members.end();
  await written;
  await store.delete('bench/export-floor');
  return lines;
}

/** The text the export wrote for `shard` (segments, snapshot parts, manifest), decompressed and joined. */
async function exportOutput(store: FsObjectStore, shard: string): Promise<Buffer> {
  const texts: Buffer[] = [];
  for (const prefix of [segmentPrefix(shard), snapshotPrefix(shard), manifestPrefix(shard)]) {
    for await (const key of store.list(prefix)) texts.push(gunzipSync((await store.get(key))!));
  }
  return Buffer.concat(texts);
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
const cpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

/** One measured call. */
interface Timing {
  wallMs: number;
  cpuMs: number;
  rows: number;
}

/** Runs `fn` once, timing its wall and CPU time (this process's threads, zlib's pool included). */
async function timed<T>(
  fn: () => Promise<T>,
): Promise<{ value: T; wallMs: number; cpuMs: number }> {
  const wallStart = performance.now();
  const cpuStart = cpuMs();
  const value = await fn();
  return { value, cpuMs: cpuMs() - cpuStart, wallMs: performance.now() - wallStart };
}

const mid = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** One round of a figure: the product's call and its floor, timed in turn. */
interface Round {
  actual: Timing;
  floor: Timing;
}

/**
 * One line of the throughput table: the product's median rows/s, wall and
 * CPU seconds, its floor's, and the median of the rounds' floor ÷ actual
 * (1.00× = at the floor; the goal is a floor, so higher is better).
 */
function line(label: string, rounds: Round[]): void {
  const ratio = (time: 'wallMs' | 'cpuMs') =>
    mid(rounds.map((r) => r.floor[time] / r.actual[time]));
  const median = (side: keyof Round, time: 'wallMs' | 'cpuMs') =>
    mid(rounds.map((r) => r[side][time])) / 1000;
  const rows = rounds[0]!.actual.rows;
  const wall = median('actual', 'wallMs');
  console.log(
    `  ${label.padEnd(34)} ${fmt(rows / wall).padStart(9)} ${wall.toFixed(2).padStart(7)} ${median('floor', 'wallMs').toFixed(2).padStart(7)} ${ratio('wallMs').toFixed(2).padStart(6)}× ${median('actual', 'cpuMs').toFixed(2).padStart(7)} ${median('floor', 'cpuMs').toFixed(2).padStart(7)} ${ratio('cpuMs').toFixed(2).padStart(6)}×`,
  );
}

/** Removes every export object of the shard and sets the watermark back (to re-run the same export). */
async function undoExport(
  table: Table,
  store: FsObjectStore,
  shard: string,
  layout: ShardLayout,
  watermark: number,
) {
  for (const prefix of [manifestPrefix(shard), segmentPrefix(shard), snapshotPrefix(shard)]) {
    for await (const key of store.list(prefix)) await store.delete(key);
  }
  await setRecord(table, shard, layout, watermark);
}

/** Samples heap + external + array buffers every 5 ms while `fn` runs; the peak above the start. */
async function peakMemory<T>(fn: () => Promise<T>): Promise<{ value: T; peakBytes: number }> {
  const used = () => {
    const m = process.memoryUsage();
    return m.heapUsed + m.external + m.arrayBuffers;
  };
  const start = used();
  let peak = start;
  const timer = setInterval(() => {
    peak = Math.max(peak, used());
  }, 5);
  try {
    const value = await fn();
    peak = Math.max(peak, used());
    return { value, peakBytes: peak - start };
  } finally {
    clearInterval(timer);
  }
}

/** One export of the history shard: its time, bytes written and peak memory. */
interface HistoryStep {
  ms: number;
  bytes: number;
  peak: number;
  rows: number;
  segments: number;
  parts: number;
  compacted: boolean;
}

/** B, one run: a shard with fixed live keys whose keyless history grows 10x, exported after every step. */
async function historyRun(
  table: Table,
  store: FsObjectStore,
  random: () => number,
  exportDeps: Parameters<typeof exportShard>[0],
  shard: string,
): Promise<HistoryStep[]> {
  let layout: ShardLayout | undefined;
  const steps: HistoryStep[] = [];
  for (let step = 1; step <= STEPS; step++) {
    const watermark = layout?.objects ?? 0;
    layout = await writeWal(store, shard, STEP_ROWS, random, layout);
    await setRecord(table, shard, layout, watermark);
    global.gc?.();
    const started = performance.now();
    const { value: report, peakBytes } = await peakMemory(() => exportShard(exportDeps, shard));
    const ms = performance.now() - started;
    if (report.status !== 'exported') throw new Error(`export ${report.status}: ${report.reason}`);
    steps.push({
      ms,
      bytes: report.bytes,
      peak: peakBytes,
      rows: layout.rows,
      segments: report.segments,
      parts: report.parts,
      compacted: report.writes?.compacted === true,
    });
  }
  return steps;
}

/**
 * B: `RUNS` histories on fresh shards; each step's figures are the median over
 * the runs, and so is each last/first ratio (one export's time moves by
 * tenths of a second on a noisy machine).
 */
async function history(
  table: Table,
  store: FsObjectStore,
  random: () => number,
  exportDeps: Parameters<typeof exportShard>[0],
): Promise<void> {
  console.log(
    `\nhistory shard: ${fmt(LIVE_KEYS)} live keys, ${fmt(STEP_ROWS)} rows per step, ${STEPS} steps (the keyless history grows ${STEPS}x); an export after each; median of ${RUNS} runs`,
  );
  const runs: HistoryStep[][] = [];
  for (let run = 1; run <= RUNS; run++) {
    runs.push(await historyRun(table, store, random, exportDeps, `bench-h${run}`));
  }
  console.log(
    `  ${'step'.padStart(4)} ${'history rows'.padStart(13)} ${'export s'.padStart(9)} ${'written'.padStart(10)} ${'peak mem'.padStart(10)} ${'segments'.padStart(9)} ${'parts'.padStart(6)} compacted`,
  );
  for (let step = 0; step < STEPS; step++) {
    const at = runs.map((steps) => steps[step]!);
    const first = at[0]!;
    console.log(
      `  ${String(step + 1).padStart(4)} ${fmt(first.rows).padStart(13)} ${(mid(at.map((x) => x.ms)) / 1000).toFixed(2).padStart(9)} ${mb(mid(at.map((x) => x.bytes))).padStart(10)} ${mb(mid(at.map((x) => x.peak))).padStart(10)} ${String(first.segments).padStart(9)} ${String(first.parts).padStart(6)} ${first.compacted ? 'yes' : 'no'}`,
    );
  }
  const ratio = (pick: (x: HistoryStep) => number) =>
    mid(runs.map((steps) => pick(steps.at(-1)!) / pick(steps[0]!)));
  const flat = [
    ['time', ratio((x) => x.ms)],
    ['bytes written', ratio((x) => x.bytes)],
    ['peak memory', ratio((x) => x.peak)],
  ] as const;
  console.log(
    `  last / first export: ${flat.map(([name, value]) => `${name} ${value.toFixed(2)}x`).join(', ')} (goal: each within 1.5x while the history grew ${STEPS}x)`,
  );
}

async function parent(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'shardwal-bench-recovery-'));
  const dynalite = await startDynaliteProcess();
  const table: Table = { client: dynalite.client, tableName: 'bench-recovery' };
  await ensureTable(table);
  const store = new FsObjectStore(dir);
  const random = seededRandom(SEED);
  const deps = { table, store, now: () => Date.now() };
  const exportDeps = {
    ...deps,
    walRetentionMs: 7 * 24 * 3600 * 1000,
    ...(GZIP_LEVEL === undefined ? {} : { gzipLevel: Number(GZIP_LEVEL) }),
  };
  const recoveryDeps = {
    ...deps,
    gapSealMs: 30_000,
    leaseMs: 60_000,
    voidLifetimeMs: 25 * 3600 * 1000,
    owner: 'bench',
  };
  try {
    console.log(
      `shardwal recovery bench (seed ${SEED}, ${ROWS_PER_OBJECT} rows per WAL object in batches of ${ROWS_PER_BATCH}, ${Math.round(KEYED_SHARE * 100)}% keyed over ${fmt(LIVE_KEYS)} keys, 5% of keyed rows deletes; ${RUNS} rounds, medians${GZIP_LEVEL === undefined ? '' : `; exports at gzip level ${GZIP_LEVEL}`})`,
    );
    // A. Throughput.
    const head = await writeWal(store, 'bench-a', ROWS, random);
    await setRecord(table, 'bench-a', head, 0);
    console.log(
      `\nthroughput shard: ${fmt(head.rows)} rows in ${head.objects} WAL objects, raw ${mb(head.rawBytes)}, stored ${mb(head.storedBytes)}`,
    );
    // Rounds: each figure and its floor in turn, so a slow stretch of the shared
    // machine slows both sides; a ratio is the median of the rounds' ratios.
    const walKeys = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, i) => walKey('bench-a', from + i));
    const headKeys = walKeys(0, head.objects);
    const rebuildRounds: Round[] = [];
    const exportRounds: Round[] = [];
    let rebuilt!: Awaited<ReturnType<typeof rebuildShard>>;
    let exported!: Awaited<ReturnType<typeof exportShard>>;
    let output: Buffer = Buffer.alloc(0);
    for (let round = 0; round < RUNS; round++) {
      if (round > 0) await undoExport(table, store, 'bench-a', head, 0);
      const readBase = await timed(() => readFloor(dir, headKeys));
      const rebuild = await timed(() =>
        rebuildShard(recoveryDeps, 'bench-a', { useExport: false }),
      );
      const exporting = await timed(() => exportShard(exportDeps, 'bench-a', { retention: false }));
      rebuilt = rebuild.value;
      exported = exporting.value;
      if (exported.status !== 'exported')
        throw new Error(`export ${exported.status}: ${exported.reason}`);
      if (round === 0) output = await exportOutput(store, 'bench-a');
      const exportBase = await timed(() =>
        exportFloor(dir, store, headKeys, output, exportDeps.gzipLevel ?? FRAME_GZIP_LEVEL),
      );
      rebuildRounds.push({
        actual: { ...rebuild, rows: rebuilt.replayed.walRows },
        floor: { ...readBase, rows: rebuilt.replayed.walRows },
      });
      exportRounds.push({
        actual: { ...exporting, rows: exported.folded!.walRows },
        floor: { ...exportBase, rows: exported.folded!.walRows },
      });
    }
    console.log(
      `  ${''.padEnd(34)} ${'rows/s'.padStart(9)} ${'wall s'.padStart(7)} ${'floor'.padStart(7)} ${'f÷a'.padStart(7)} ${'CPU s'.padStart(7)} ${'floor'.padStart(7)} ${'f÷a'.padStart(7)}`,
    );
    line('rebuild: whole WAL, no export', rebuildRounds);
    line('export: whole WAL into a manifest', exportRounds);
    const tail = await writeWal(store, 'bench-a', Math.round(ROWS / 5), random, head);
    await setRecord(table, 'bench-a', tail, head.objects);
    const manifestKeys: string[] = [];
    for await (const key of store.list(manifestPrefix('bench-a'))) manifestKeys.push(key);
    const tailKeys = [...manifestKeys, ...walKeys(head.objects, tail.objects)];
    const tailRounds: Round[] = [];
    for (let round = 0; round < RUNS; round++) {
      const base = await timed(() => readFloor(dir, tailKeys));
      const rebuild = await timed(() => rebuildShard(recoveryDeps, 'bench-a'));
      tailRounds.push({
        actual: { ...rebuild, rows: rebuild.value.replayed.walRows },
        floor: { ...base, rows: rebuild.value.replayed.walRows },
      });
    }
    line('rebuild: manifest + 20% WAL tail', tailRounds);
    if (rebuilt.status !== 'rebuilt') throw new Error(`rebuild ${rebuilt.status}`);
    console.log(
      `  export: ${mb(exported.bytes)} written (${exported.segments} segment(s), ${exported.parts} part(s)), ${mb(output.length)} of text; rebuild from the manifest reads no segment or part`,
    );
    console.log(
      "  floors (same run, same pool): rebuild = read + gunzip on zlib's pool, one object ahead, + split into lines; export = that + gzip of its output text in the same members on the same pool, written as one object",
    );

    // B. History: fixed live keys, keyless history growing 10x, an export after every step.
    if (STEP_ROWS > 0) await history(table, store, random, exportDeps);

    // C. Memory, in a child with a capped heap.
    if (MEMORY_ROWS === 0) return;
    const big = await writeWal(store, 'bench-m', MEMORY_ROWS, random);
    await setRecord(table, 'bench-m', big, 0);
    console.log(
      `\nmemory shard: ${fmt(big.rows)} rows in ${big.objects} WAL objects, raw ${mb(big.rawBytes)} (${(big.rawBytes / 2 ** 20 / HEAP_MB).toFixed(1)}× the ${HEAP_MB} MB heap cap), stored ${mb(big.storedBytes)}`,
    );
    for (const mode of ['export', 'rebuild'] as const) {
      const result = await child(mode, dynalite.endpoint, table.tableName, dir, 'bench-m');
      console.log(
        `  ${mode.padEnd(8)} --max-old-space-size=${HEAP_MB}: peak RSS ${mb(result.maxRssBytes)}, peak heap used ${mb(result.peakHeapUsed)}, peak external+arrayBuffers ${mb(result.peakExternal)}; ${fmt(result.rows)} rows in ${(result.ms / 1000).toFixed(1)} s (${fmt((result.rows / result.ms) * 1000)} rows/s); ${result.note}`,
      );
    }
  } finally {
    await dynalite.close();
    await rm(dir, { recursive: true, force: true });
  }
}

interface ChildResult {
  maxRssBytes: number;
  peakHeapUsed: number;
  peakExternal: number;
  rows: number;
  ms: number;
  note: string;
}

function child(
  mode: 'export' | 'rebuild',
  endpoint: string,
  tableName: string,
  dir: string,
  shard: string,
): Promise<ChildResult> {
  const script = fileURLToPath(import.meta.url);
  const args = [
    `--max-old-space-size=${HEAP_MB}`,
    '--import',
    'tsx',
    script,
    '--child',
    mode,
    endpoint,
    tableName,
    dir,
    shard,
  ];
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (chunk) => {
      out += chunk;
    });
    proc.on('error', reject);
    proc.on('exit', (code) => {
      if (code !== 0) reject(new Error(`child ${mode} exited with ${code}`));
      else resolve(JSON.parse(out.trim().split('\n').at(-1)!) as ChildResult);
    });
  });
}

async function runChild([mode, endpoint, tableName, dir, shard]: string[]): Promise<void> {
  const client = new DynamoDBClient(emulatorClientOptions(endpoint!));
  const table: Table = { client, tableName: tableName! };
  const store = new FsObjectStore(dir!);
  let peakHeapUsed = 0;
  let peakExternal = 0;
  const sample = () => {
    const usage = process.memoryUsage();
    peakHeapUsed = Math.max(peakHeapUsed, usage.heapUsed);
    peakExternal = Math.max(peakExternal, usage.external + usage.arrayBuffers);
  };
  const timer = setInterval(sample, 10);
  const started = performance.now();
  let rows = 0;
  let note = '';
  if (mode === 'export') {
    const report = await exportShard(
      { table, store, now: () => Date.now(), walRetentionMs: 7 * 24 * 3600 * 1000 },
      shard!,
    );
    if (report.status !== 'exported') throw new Error(`export ${report.status}: ${report.reason}`);
    rows = report.folded!.walRows;
    note = `export ${mb(report.bytes)} written as it streamed (${report.segments} segment(s), ${report.parts} snapshot part(s), ${fmt(report.keylessRows)} keyless rows)`;
  } else {
    const report = await rebuildShard(
      {
        table,
        store,
        now: () => Date.now(),
        gapSealMs: 30_000,
        leaseMs: 60_000,
        voidLifetimeMs: 25 * 3600 * 1000,
        owner: 'bench',
      },
      shard!,
      // The whole WAL: what memory a replay holds, whatever the history (from the manifest it reads none).
      { useExport: false },
    );
    if (report.status !== 'rebuilt') throw new Error(`rebuild ${report.status}`);
    rows = report.replayed.exportRows + report.replayed.walRows;
    note = 'the whole WAL replayed (exports ignored)';
  }
  const ms = performance.now() - started;
  clearInterval(timer);
  sample();
  const maxRssBytes = process.resourceUsage().maxRSS * 1024;
  client.destroy();
  console.log(
    JSON.stringify({
      maxRssBytes,
      peakHeapUsed,
      peakExternal,
      rows,
      ms,
      note,
    } satisfies ChildResult),
  );
}

const childAt = process.argv.indexOf('--child');
if (childAt >= 0) await runChild(process.argv.slice(childAt + 1));
else await parent();
