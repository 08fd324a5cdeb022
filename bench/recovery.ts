/**
 * `npm run bench:recovery`: what recovery and export cost, on the filesystem
 * object store (dynalite for the table), in three parts:
 *
 * A. Throughput beside the read floor (read + gunzip + JSON.parse of every
 *    line of the same WAL objects): a rebuild of the whole WAL, and an export
 *    of the whole WAL into segments, snapshot parts and a manifest. They run
 *    in BENCH_RUNS rounds in this process (floor, rebuild, export in turn, so
 *    a slow stretch of the shared machine slows all three); each time is the
 *    median over the rounds, and each ratio to the floor the median of the
 *    rounds' ratios (the goal is >= 0.8x).
 * B. History: one shard with a fixed set of live keys, exported again after
 *    every step while its keyless history grows 10x. Each export's time,
 *    bytes written and peak memory must stay flat (the last within 1.5x the
 *    first): an export costs O(new data), not O(history). BENCH_RUNS
 *    histories, medians printed.
 * C. Memory: an export and a rebuild of a shard whose raw WAL is several
 *    times the child process's V8 heap cap.
 *
 * The WAL objects are written directly with `encodeWal` (seeded data, 2,000
 * rows per object in batches of 100), and the shard record is then set to
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
import { gunzipSync } from 'node:zlib';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { exportShard } from '../lib/export/export-shard.js';
import { manifestPrefix } from '../lib/manifest/format.js';
import { ensureTable } from '../lib/memtable/create-table.js';
import { startDynalite } from '../lib/memtable/dynalite-server.js';
import { fenceForRebuild, resetCursors } from '../lib/memtable/reset-cursors.js';
import type { Table } from '../lib/memtable/table.js';
import { logger } from '../lib/observability/telemetry.js';
import { walKey } from '../lib/paths.js';
import { rebuildShard } from '../lib/recovery/rebuild.js';
import { segmentPrefix } from '../lib/segment/format.js';
import { snapshotPrefix } from '../lib/snapshot/format.js';
import { FsObjectStore } from '../lib/store/fs-store.js';
import { encodeWal } from '../lib/wal/encode.js';
import type { JsonObject, WalRow } from '../lib/wal/format.js';
import { seededRandom } from './support.js';

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

/** Writes `rows` rows as WAL objects from `first` on (position, seq, offset continue from it). */
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
    const firstSeq = layout.lastSeq + 1;
    const walRows: WalRow[] = [];
    for (let i = 0; i < count; i++) {
      const seq = firstSeq + Math.floor(i / ROWS_PER_BATCH);
      walRows.push({ seq, offset: layout.rows + i, ...makeRow(random, layout.rows + i) });
    }
    const lastSeq = walRows.at(-1)!.seq;
    const object = {
      header: {
        shard,
        position: layout.objects,
        epoch: 1,
        firstSeq,
        lastSeq,
        firstRowOffset: layout.rows,
        rowCount: count,
        voidSeqs: [],
        createdAtMs: 1_800_000_000_000 + layout.objects * 1000,
      },
      rows: walRows,
    };
    const bytes = encodeWal(object);
    await store.putIfAbsent(walKey(shard, layout.objects), bytes);
    layout.rawBytes += gunzipSync(bytes).length;
    layout.storedBytes += bytes.length;
    layout.objects += 1;
    layout.rows += count;
    layout.lastSeq = lastSeq;
    written += count;
  }
  return layout;
}

function makeRow(random: () => number, offset: number): Omit<WalRow, 'seq' | 'offset'> {
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

/** The floor: read, gunzip and JSON.parse every line of every WAL object (no checks, no fold). */
async function floor(dir: string, shard: string, objects: number): Promise<number> {
  let rows = 0;
  for (let position = 0; position < objects; position++) {
    const text = gunzipSync(
      await readFile(join(dir, ...walKey(shard, position).split('/'))),
    ).toString('utf8');
    for (const line of text.split('\n')) {
      if (line.length === 0) continue;
      JSON.parse(line);
      rows += 1;
    }
  }
  return rows - 2 * objects; // header and trailer lines are not rows
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

/**
 * One line of the throughput table: median rows/s and times over the rounds,
 * and the median of the rounds' ratios to the floor's rows/s (wall, then CPU).
 */
function line<K extends string>(
  label: string,
  rounds: Record<K | 'floor', Timing>[],
  name: K | 'floor',
): void {
  const rate = (t: Timing, time: 'wallMs' | 'cpuMs') => (t.rows / t[time]) * 1000;
  const ratio = (time: 'wallMs' | 'cpuMs') =>
    mid(rounds.map((r) => rate(r[name], time) / rate(r.floor, time)));
  const wallMs = mid(rounds.map((r) => r[name].wallMs));
  const cpu = mid(rounds.map((r) => r[name].cpuMs));
  const rows = rounds[0]![name].rows;
  console.log(
    `  ${label.padEnd(38)} ${fmt((rows / wallMs) * 1000).padStart(10)} ${(wallMs / 1000).toFixed(2).padStart(7)} ${ratio('wallMs').toFixed(2).padStart(7)}× ${(cpu / 1000).toFixed(2).padStart(7)} ${ratio('cpuMs').toFixed(2).padStart(7)}×`,
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
  const dynalite = await startDynalite();
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
    // Rounds: the floor, a whole-WAL rebuild and a whole-WAL export in turn, so a slow
    // stretch of the shared machine slows all three; a ratio is the median of the rounds' ratios.
    const rounds: Record<'floor' | 'rebuild' | 'export', Timing>[] = [];
    let rebuilt!: Awaited<ReturnType<typeof rebuildShard>>;
    let exported!: Awaited<ReturnType<typeof exportShard>>;
    for (let round = 0; round < RUNS; round++) {
      if (round > 0) await undoExport(table, store, 'bench-a', head, 0);
      const base = await timed(() => floor(dir, 'bench-a', head.objects));
      const rebuild = await timed(() =>
        rebuildShard(recoveryDeps, 'bench-a', { useExport: false }),
      );
      const exporting = await timed(() => exportShard(exportDeps, 'bench-a', { retention: false }));
      rebuilt = rebuild.value;
      exported = exporting.value;
      if (exported.status !== 'exported')
        throw new Error(`export ${exported.status}: ${exported.reason}`);
      rounds.push({
        floor: { ...base, rows: base.value },
        rebuild: { ...rebuild, rows: rebuilt.replayed.walRows },
        export: { ...exporting, rows: exported.folded!.walRows },
      });
    }
    console.log(
      `  ${''.padEnd(38)} ${'rows/s'.padStart(10)} ${'wall s'.padStart(7)} ${'÷ floor'.padStart(8)} ${'CPU s'.padStart(7)} ${'÷ floor'.padStart(8)}`,
    );
    line('floor: read + gunzip + JSON.parse', rounds, 'floor');
    line('rebuild: whole WAL, no export', rounds, 'rebuild');
    line('export: whole WAL into a manifest', rounds, 'export');
    const tail = await writeWal(store, 'bench-a', Math.round(ROWS / 5), random, head);
    await setRecord(table, 'bench-a', tail, head.objects);
    const tailRounds: Record<'floor' | 'tail', Timing>[] = [];
    for (let round = 0; round < RUNS; round++) {
      const base = await timed(() => floor(dir, 'bench-a', head.objects));
      const rebuild = await timed(() => rebuildShard(recoveryDeps, 'bench-a'));
      tailRounds.push({
        floor: { ...base, rows: base.value },
        tail: { ...rebuild, rows: rebuild.value.replayed.walRows },
      });
    }
    line('rebuild: manifest + 20% WAL tail', tailRounds, 'tail');
    if (rebuilt.status !== 'rebuilt') throw new Error(`rebuild ${rebuilt.status}`);
    console.log(
      `  export: ${mb(exported.bytes)} written (${exported.segments} segment(s), ${exported.parts} part(s)); rebuild from the manifest reads no segment or part`,
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
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
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
