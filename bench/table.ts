/**
 * `npm run bench:table`: what Iceberg tables cost and what they buy.
 *
 * One seeded shard of event rows (~283 B each, BENCH_TABLE_ROWS, default
 * 100,000, spread over 24 hours) is written as WAL objects to a filesystem
 * store as the flusher writes them (format v3: puts of 100 rows compressed
 * once by the put path, 10 puts per object), then:
 *   1. committed rows/s per core: `appendTable` (WAL read and verified,
 *      rows into data files as they are read, manifests, metadata) against
 *      the floor of writing the same rows, already in memory, to the same
 *      Parquet files with the same codec alone: the committer's own writer
 *      (`DataFileWriter`: typed columns projected from each row's text, the
 *      same partitions, row groups, statistics and codec), whose files the
 *      bench checks are byte-identical to the committed ones; CPU time
 *      (user + system) over BENCH_RUNS rounds (default 7) after a warm-up
 *      round, the commit and the floor taking turns going first, the ratio
 *      the median of each round's own; each timed step started after a full
 *      collection (`--expose-gc`, `settle`) so that no step pays for the
 *      garbage of the one before; and, for reference, the Parquet
 *      writer alone, handed the typed values already projected;
 *   2. storage: the same rows as today's JSON segments (gzip'd NDJSON, the
 *      segment writer), as WAL objects, and as Parquet with each codec,
 *      with the CPU each Parquet codec took;
 *   3. one DuckDB query, count by hour with a filter on a typed column,
 *      over the table's files (`read_parquet` over the current snapshot's
 *      list) and over the JSON segments (`read_ndjson`): bytes read (the
 *      process's `rchar` from /proc/self/io: every byte DuckDB read through
 *      a syscall) and wall time, median of BENCH_QUERY_RUNS (default 7),
 *      the queries taking turns so the machine's other load falls on all
 *      alike. The hour is bucketed on the epoch; the same query with
 *      `date_trunc` (the same hours, through DuckDB's ICU calendar per
 *      row, which both sides pay alike) and the filter and count without
 *      the bucketing are printed beside it;
 *   4. the keyless history stored as segments or listed from the table
 *      (zero-copy): bytes stored, bytes per GB retained 30 days, and the
 *      CPU of reading it back (`table-history.ts`).
 */

import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { encodeBatchRows } from '../lib/memtable/batch-codec.js';
import { walKey } from '../lib/paths.js';
import { seededRandom } from '../lib/seeded-random.js';
import { segmentKey } from '../lib/segment/format.js';
import { SegmentWriter } from '../lib/segment/writer.js';
import { FsObjectStore } from '../lib/store/fs-store.js';
import { appendTable } from '../lib/table/append.js';
import type { FixedColumns } from '../lib/table/data-columns.js';
import { ParquetCodec, type TableRow } from '../lib/table/data-file.js';
import { parseTableRoutes } from '../lib/table/names.js';
import { tableLocation } from '../lib/table/paths.js';
import { Projector } from '../lib/table/project.js';
import { evolveSchema, RowOp, type TypedColumn } from '../lib/table/schema.js';
import type { TablesConfig } from '../lib/table/table-config.js';
import { currentDataFiles } from '../lib/table/table-status.js';
import { readWalRange } from '../lib/table/wal-source.js';
import { DataFileWriter } from '../lib/table/write-files.js';
import { encodeWalBatches, type FramedBatch } from '../lib/wal/encode-batches.js';
import { FRAME_GZIP_LEVEL } from '../lib/wal/framing.js';
import { compareHistory } from './table-history.js';

const ROWS = Number(process.env.BENCH_TABLE_ROWS ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const QUERY_RUNS = Number(process.env.BENCH_QUERY_RUNS ?? 7);
const PER_OBJECT = 1000;
const PER_PUT = 100;
const SHARD = 'events-0';
const T0 = Date.UTC(2026, 11, 1);
const COLUMNS: TypedColumn[] = [
  { name: 'amount', type: 'decimal(10,2)' },
  { name: 'ts', type: 'timestamptz' },
];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
/** Collects what the previous timed step left (with --expose-gc), so no step pays for another's garbage. */
const settle = () => (globalThis as { gc?: () => void }).gc?.();
const rchar = () => Number(/rchar: (\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))![1]);
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;
const n = (x: number) => Math.round(x).toLocaleString('en-US');

function rowText(random: () => number, i: number, atMs: number): string {
  const pages = [
    '/',
    '/products/widget-9000',
    '/cart',
    '/checkout/payment',
    '/search?q=blue+shoes',
  ];
  const kinds = ['view', 'click', 'add_to_cart', 'purchase'];
  const amount = (Math.floor(random() * 100_000) / 100).toFixed(2);
  return JSON.stringify({
    id: `evt-${String(i).padStart(9, '0')}`,
    user: `u-${Math.floor(random() * 50_000)}`,
    kind: kinds[Math.floor(random() * kinds.length)],
    page: pages[Math.floor(random() * pages.length)],
    ts: new Date(atMs).toISOString(),
    session: Math.floor(random() * 1e12).toString(36),
    ua: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36',
    tags: ['ab-test-7', random() < 0.5 ? 'mobile' : 'desktop'],
  }).replace(/}$/, `,"amount":${amount}}`);
}

async function main(): Promise<void> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'shardwal-bench-table-'));
  const store = new FsObjectStore(root);
  const random = seededRandom(11);
  const texts: string[] = [];
  const times: number[] = [];
  for (let i = 0; i < ROWS; i++) {
    times.push(T0 + Math.floor((i / ROWS) * 24 * 3600 * 1000));
    texts.push(rowText(random, i, times[i]!));
  }
  const rawBytes = texts.reduce((sum, t) => sum + Buffer.byteLength(t), 0);

  // WAL objects, as the flusher writes them (v3: each put's rows compressed once, by the put).
  const seqOf = (i: number) => Math.floor(i / PER_PUT) + 1;
  const ingestedAtOf = (i: number) => times[(seqOf(i) - 1) * PER_PUT]!;
  let walBytes = 0;
  for (let p = 0; p * PER_OBJECT < ROWS; p++) {
    const first = p * PER_OBJECT;
    const last = Math.min(ROWS, first + PER_OBJECT);
    const batches: FramedBatch[] = [];
    for (let i = first; i < last; i += PER_PUT) {
      const put = encodeBatchRows(
        texts.slice(i, Math.min(last, i + PER_PUT)).map((text) => ({ text })),
      );
      batches.push({
        seq: seqOf(i),
        rows: put.rowCount,
        ingestedAtMs: ingestedAtOf(i),
        member: put.compressed,
        textBytes: put.jsonBytes,
      });
    }
    const bytes = encodeWalBatches(
      {
        shard: SHARD,
        position: p,
        epoch: 1,
        firstSeq: batches[0]!.seq,
        lastSeq: batches.at(-1)!.seq,
        firstRowOffset: first,
        rowCount: last - first,
        voidSeqs: [],
        createdAtMs: times[last - 1]!,
      },
      batches,
    );
    walBytes += bytes.byteLength;
    await store.putIfAbsent(walKey(SHARD, p), bytes);
  }

  // Today's history: JSON segments (the export's segment writer), one per 256 MB raw as export cuts them.
  const segment = new SegmentWriter(store, SHARD, 0, FRAME_GZIP_LEVEL);
  for (let i = 0; i < ROWS; i++) await segment.row(seqOf(i), i, texts[i]!);
  const { ref } = await segment.finish(Math.ceil(ROWS / PER_OBJECT), Date.now());
  const segmentBytes = ref.bytes;

  // 1. Committer against the Parquet floor.
  const config: TablesConfig = {
    routes: parseTableRoutes(`${SHARD}=events`),
    options: new Map([['events', { partition: 'day', columns: COLUMNS }]]),
    commitMs: 1,
    targetFileBytes: 512 * 1024 * 1024,
    maxCommitBytes: 1024 * 1024 * 1024,
    keepSnapshots: 10,
    snapshotMaxAgeMs: 0,
    orphanAgeMs: 3600_000,
  };
  const schema = evolveSchema('bench', 'events', undefined, 0, COLUMNS).schema;
  // The floor's rows: the rows the WAL holds, already in memory (what the committer has once it has read them).
  const fixed: FixedColumns[] = texts.map((_, i) => ({
    shard: SHARD,
    seq: seqOf(i),
    offset: i,
    position: Math.floor(i / PER_OBJECT),
    ingestedAtMs: ingestedAtOf(i),
    key: null,
    op: RowOp.append,
  }));
  // The same, typed values projected beforehand: what the Parquet writer alone takes.
  const projector = new Projector(COLUMNS);
  const projected: TableRow[] = texts.map((text, i) => ({
    ...fixed[i]!,
    text,
    typed: projector.project(text).values,
  }));
  // The floor writes with the committer's own writer (same partitions, files, row groups, statistics, codec).
  const floorStore = new FsObjectStore(root);
  const floorDeps = (codec: ParquetCodec, run: number) => ({
    store: floorStore,
    config,
    locationBase: `file://${root}/floor-${run}`,
    now: () => Date.now(),
    codec,
  });
  const commitCpu: number[] = [];
  const floorCpu: Record<string, number[]> = { GZIP: [], SNAPPY: [] };
  const writerCpu: number[] = [];
  const parquetBytes: Record<string, number> = {};
  /** Commits the whole WAL to a new table; returns its CPU ms and its data files (local paths). */
  const timeCommit = async (run: number) => {
    const locationBase = `file://${root}/run-${run}`;
    const deps = { store: new FsObjectStore(root), config, locationBase, now: () => Date.now() };
    const table = `events_${run}`;
    config.routes = parseTableRoutes(`${SHARD}=${table}`);
    config.options.set(table, { partition: 'day', columns: COLUMNS });
    settle();
    const start = cpuMs();
    const report = await appendTable(deps, table, [SHARD]);
    const cpu = cpuMs() - start;
    if (report.rows !== ROWS) throw new Error(`committed ${report.rows} rows, expected ${ROWS}`);
    const files = (await currentDataFiles(deps, table)).map((f) =>
      f.replace(`${locationBase}/`, `${root}/`),
    );
    return { cpu, files };
  };
  /** Writes the rows in memory with the committer's writer and `codec`; returns its CPU ms and files (local paths). */
  const timeFloor = async (codec: ParquetCodec, run: number) => {
    const table = `floor_${codec.toLowerCase()}_${run}`;
    settle();
    const start = cpuMs();
    const writer = new DataFileWriter(
      floorDeps(codec, run),
      table,
      tableLocation(`file://${root}/floor-${run}`, table),
      schema,
      'day',
    );
    for (let i = 0; i < ROWS; i++) writer.add(fixed[i]!, texts[i]!);
    const written = await writer.store();
    const cpu = cpuMs() - start;
    parquetBytes[codec] = written.reduce((sum, f) => sum + f.file_size_in_bytes, 0);
    return {
      cpu,
      files: written.map((f) => f.file_path.replace(`file://${root}/floor-${run}/`, `${root}/`)),
    };
  };
  // Round -1 warms both sides up and is not counted. The commit and its floor
  // then take turns going first, so neither is always the colder or the later
  // of the pair, and each round's ratio compares two steps a second apart:
  // this machine's speed drifts by a fifth between seconds (docs/tables.md).
  const ratios: number[] = [];
  for (let run = -1; run < RUNS; run++) {
    const round = run < 0 ? `warm` : String(run);
    // The warm-up round writes its files under the one id no counted round takes.
    const id = run < 0 ? RUNS : run;
    let commit: Awaited<ReturnType<typeof timeCommit>>;
    let floor: Awaited<ReturnType<typeof timeFloor>>;
    if (run % 2 === 0) {
      commit = await timeCommit(id);
      floor = await timeFloor(ParquetCodec.gzip, id);
    } else {
      floor = await timeFloor(ParquetCodec.gzip, id);
      commit = await timeCommit(id);
    }
    // Same output: the committed files hold exactly the floor's bytes.
    const committed = await Promise.all(commit.files.map((f) => readFile(f)));
    const floorFiles = await Promise.all(floor.files.map((f) => readFile(f)));
    if (
      committed.length !== floorFiles.length ||
      committed.some((bytes, k) => !bytes.equals(floorFiles[k]!))
    ) {
      throw new Error(`round ${round}: the committed data files differ from the floor's`);
    }
    if (run < 0) continue;
    if (run === 0) (globalThis as { files?: string[] }).files = commit.files;
    commitCpu.push(commit.cpu);
    floorCpu.GZIP!.push(floor.cpu);
    ratios.push(floor.cpu / commit.cpu);
    floorCpu.SNAPPY!.push((await timeFloor(ParquetCodec.snappy, run)).cpu);
    settle();
    const start = cpuMs();
    const writer = new DataFileWriter(
      floorDeps(ParquetCodec.gzip, run),
      `writer_${run}`,
      tableLocation(`file://${root}/floor-${run}`, `writer_${run}`),
      schema,
      'day',
    );
    for (const row of projected) writer.addRow(row);
    await writer.store();
    writerCpu.push(cpuMs() - start);
  }
  // Where the committer's time goes: reading and verifying the WAL (its reader, `wal-source.ts`) and projecting typed columns.
  const decodeCpu: number[] = [];
  const projectCpu: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    settle();
    let start = cpuMs();
    await readWalRange(store, SHARD, 0, Number.POSITIVE_INFINITY, () => undefined);
    decodeCpu.push(cpuMs() - start);
    settle();
    start = cpuMs();
    const typed = COLUMNS.map(() => [] as unknown[]);
    for (const text of texts) projector.projectInto(text, typed as never, {});
    projectCpu.push(cpuMs() - start);
  }
  const commitRate = ROWS / (median(commitCpu) / 1000);
  const floorRate = ROWS / (median(floorCpu.GZIP!) / 1000);
  const writerRate = ROWS / (median(writerCpu) / 1000);
  console.log(
    `rows: ${n(ROWS)} (${mb(rawBytes)} of row text, ${n(rawBytes / ROWS)} B each), ${RUNS} rounds after a warm-up round, medians of CPU time`,
  );
  console.log('\n1. committed rows/s per core (CPU seconds)');
  console.log(
    `   appendTable (WAL → Parquet GZIP + manifests + metadata):        ${n(commitRate)} rows/s`,
  );
  console.log(
    `   floor (the same rows in memory → the same Parquet GZIP files):  ${n(floorRate)} rows/s`,
  );
  console.log(
    `   ratio: ${median(ratios).toFixed(2)}× (goal ≥ 0.8×), the median of the ${RUNS} rounds' own (${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}×); the files are byte-identical`,
  );
  console.log(
    `   of the commit's ${n(median(commitCpu))} ms: reading and verifying the WAL ${n(median(decodeCpu))} ms; of the floor's ${n(median(floorCpu.GZIP!))} ms: projecting 2 typed columns ${n(median(projectCpu))} ms`,
  );
  console.log(
    `   the Parquet writer alone (typed values handed to it): ${n(writerRate)} rows/s, ratio ${(commitRate / writerRate).toFixed(2)}×`,
  );

  console.log('\n2. storage of the same rows');
  console.log(`   WAL objects (gzip JSON lines):       ${mb(walBytes)}`);
  console.log(`   JSON segments (gzip NDJSON), today:  ${mb(segmentBytes)}`);
  for (const codec of ['GZIP', 'SNAPPY']) {
    console.log(
      `   Parquet ${codec.padEnd(7)}: ${mb(parquetBytes[codec]!)}  (${(parquetBytes[codec]! / segmentBytes).toFixed(2)}× segments; write CPU ${n(median(floorCpu[codec]!))} ms)`,
    );
  }
  console.log('   per GB retained 30 days: part 4');

  // 3. DuckDB: count by hour with a filter on a typed column.
  const files = (globalThis as { files?: string[] }).files!;
  const segmentFile = path.join(root, segmentKey(SHARD, 0));
  const list = files.map((f) => `'${f.startsWith('file://') ? fileURLToPath(f) : f}'`).join(',');
  // The hour of a timestamptz, bucketed on its epoch (`epochHour`): the same UTC hours
  // `date_trunc('hour', ts)` gives, without DuckDB's ICU calendar per row, which
  // both sides would pay alike (printed too, `calendarHour`).
  const epochHour = (ts: string) =>
    `make_timestamptz((epoch_us(${ts}) // 3600000000) * 3600000000)`;
  const calendarHour = (ts: string) => `date_trunc('hour', ${ts})`;
  const tableSql = (hour: (ts: string) => string) =>
    `SELECT ${hour('ts')} AS h, count(*) AS n FROM read_parquet([${list}]) WHERE amount > 500 GROUP BY h ORDER BY h`;
  const jsonSql = (hour: (ts: string) => string) =>
    `SELECT ${hour('CAST("row".ts AS TIMESTAMPTZ)')} AS h, count(*) AS n FROM read_ndjson('${segmentFile}', columns = {seq: 'UBIGINT', "offset": 'UBIGINT', "row": 'STRUCT(ts VARCHAR, amount DECIMAL(10,2))'}) WHERE "row".amount > 500 GROUP BY h ORDER BY h`;
  const once = async (sql: string) => {
    const db = await DuckDBInstance.create(':memory:');
    const connection = await db.connect();
    await connection.run("SET threads = 1; SET TimeZone = 'UTC'");
    const r0 = rchar();
    const t0 = performance.now();
    const rows = (await connection.runAndReadAll(sql)).getRowObjectsJS();
    const wall = performance.now() - t0;
    const read = rchar() - r0;
    connection.closeSync();
    return { wall, read, result: JSON.stringify(rows.map((r) => Object.values(r).map(String))) };
  };
  // The two queries take turns, so a burst of the machine's other load falls on both alike.
  type Run = Awaited<ReturnType<typeof once>>;
  const runs = {
    table: [] as Run[],
    json: [] as Run[],
    tableCalendar: [] as Run[],
    jsonCalendar: [] as Run[],
    tableScan: [] as Run[],
    jsonScan: [] as Run[],
  };
  // The scan alone (the filter and a count): what the storage decides, without the hourly bucketing both pay alike.
  const scanOnly = (sql: string) =>
    sql
      .replace(/^SELECT .*? FROM/, 'SELECT count(*) AS n FROM')
      .replace(/ GROUP BY h ORDER BY h$/, '');
  for (let run = 0; run < QUERY_RUNS; run++) {
    runs.table.push(await once(tableSql(epochHour)));
    runs.json.push(await once(jsonSql(epochHour)));
    runs.tableCalendar.push(await once(tableSql(calendarHour)));
    runs.jsonCalendar.push(await once(jsonSql(calendarHour)));
    runs.tableScan.push(await once(scanOnly(tableSql(epochHour))));
    runs.jsonScan.push(await once(scanOnly(jsonSql(epochHour))));
  }
  for (const [a, b] of [
    [runs.table, runs.json],
    [runs.table, runs.tableCalendar],
    [runs.table, runs.jsonCalendar],
    [runs.tableScan, runs.jsonScan],
  ] as const) {
    if ([...a, ...b].some((r) => r.result !== a[0]!.result))
      throw new Error('the queries disagree');
  }
  const summary = (of: Awaited<ReturnType<typeof once>>[]) => ({
    wall: median(of.map((r) => r.wall)),
    read: median(of.map((r) => r.read)),
    result: of[0]!.result,
  });
  const overTable = summary(runs.table);
  const overJson = summary(runs.json);
  const calendarTable = summary(runs.tableCalendar);
  const calendarJson = summary(runs.jsonCalendar);
  const scanTable = summary(runs.tableScan);
  const scanJson = summary(runs.jsonScan);
  console.log(
    `\n3. DuckDB (1 thread): count by hour (bucketed on the epoch) where amount > 500, medians of ${QUERY_RUNS} runs each`,
  );
  console.log(
    `   over the table (read_parquet):  ${mb(overTable.read)} read, ${overTable.wall.toFixed(0)} ms`,
  );
  console.log(
    `   over the segments (read_ndjson): ${mb(overJson.read)} read, ${overJson.wall.toFixed(0)} ms`,
  );
  console.log(
    `   ${(overJson.read / overTable.read).toFixed(1)}× fewer bytes (goal ≥ 10×), ${(overJson.wall / overTable.wall).toFixed(1)}× faster (goal ≥ 5×); same ${JSON.parse(overTable.result).length} hourly counts`,
  );
  console.log(
    `   the hour by date_trunc (DuckDB's ICU calendar per row, both sides): table ${calendarTable.wall.toFixed(0)} ms, segments ${calendarJson.wall.toFixed(0)} ms, ${(calendarJson.wall / calendarTable.wall).toFixed(1)}× faster; same counts`,
  );
  console.log(
    `   the filter and count alone (no hourly bucketing): table ${scanTable.wall.toFixed(0)} ms, segments ${scanJson.wall.toFixed(0)} ms, ${(scanJson.wall / scanTable.wall).toFixed(1)}× faster; same count`,
  );
  await compareHistory({
    root,
    shard: SHARD,
    table: 'events_0',
    objects: Math.ceil(ROWS / PER_OBJECT),
    walBytes,
    rows: ROWS,
    runs: RUNS,
    settle,
    cpuMs,
  });
  await rm(root, { recursive: true, force: true });
}

await main();
