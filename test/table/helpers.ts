/** Test support for tables: WAL chains written the way the flusher writes them, deps, and reading a table back. */
import { parquetReadObjects } from 'hyparquet';
import { walKey } from '../../lib/paths.js';
import { seededRandom } from '../../lib/seeded-random.js';
import { MemoryObjectStore } from '../../lib/store/memory-store.js';
import type { ObjectStore } from '../../lib/store/object-store.js';
import { type AppendReport, appendTable } from '../../lib/table/append.js';
import type { TableDeps } from '../../lib/table/deps.js';
import { currentSnapshot, loadCurrent } from '../../lib/table/metadata.js';
import { parseTableRoutes } from '../../lib/table/names.js';
import { keyOfUri } from '../../lib/table/paths.js';
import { liveFiles } from '../../lib/table/snapshot-files.js';
import type { TableOptions, TablesConfig } from '../../lib/table/table-config.js';
import { encodeWal } from '../../lib/wal/encode.js';
import type { WalRow } from '../../lib/wal/format.js';

/** One row to put: keyless text, keyed upsert, or keyed delete. */
export type TestRow = { text: string; key?: string } | { key: string; delete: true };

/** Writes WAL objects of a shard in order, as a flusher does: one batch (seq) per object. */
export class WalWriter {
  position = 0;
  seq = 1;
  offset = 0;
  constructor(
    readonly store: ObjectStore,
    readonly shard: string,
  ) {}

  /** Appends one object holding `rows` as one batch; returns its position. */
  async append(rows: TestRow[], createdAtMs: number, ingestedAtMs?: number): Promise<number> {
    const walRows: WalRow[] = rows.map((row, index) => ({
      seq: this.seq,
      offset: this.offset + index,
      ...('delete' in row
        ? { key: row.key, delete: true as const }
        : { text: row.text, ...(row.key === undefined ? {} : { key: row.key }) }),
      ...(ingestedAtMs === undefined ? {} : { ingestedAtMs }),
    }));
    const bytes = encodeWal({
      header: {
        shard: this.shard,
        position: this.position,
        epoch: 1,
        firstSeq: this.seq,
        lastSeq: this.seq,
        firstRowOffset: this.offset,
        rowCount: rows.length,
        voidSeqs: [],
        createdAtMs,
      },
      rows: walRows,
    });
    const result = await this.store.putIfAbsent(walKey(this.shard, this.position), bytes);
    if (result !== 'created') throw new Error('WAL slot taken');
    this.seq += 1;
    this.offset += rows.length;
    this.position += 1;
    return this.position - 1;
  }
}

/** Table config for tests. */
export function testConfig(
  routes = '*',
  overrides: Partial<TablesConfig> = {},
  options: Record<string, TableOptions> = {},
): TablesConfig {
  return {
    routes: parseTableRoutes(routes),
    options: new Map(Object.entries(options)),
    commitMs: 1,
    targetFileBytes: 1024 * 1024,
    maxCommitBytes: 64 * 1024 * 1024,
    keepSnapshots: 3,
    snapshotMaxAgeMs: 0,
    orphanAgeMs: 60_000,
    ...overrides,
  };
}

/** Deps on `store` with a manual clock and seeded ids. */
export function testDeps(
  store: ObjectStore,
  config = testConfig(),
  seed = 1,
): TableDeps & { clock: { ms: number } } {
  const next = seededRandom(seed);
  const clock = { ms: Date.UTC(2026, 11, 1, 12) };
  const hex = (n: number) =>
    Array.from({ length: n }, () => Math.floor(next() * 16).toString(16)).join('');
  return {
    store,
    locationBase: 'file:///bucket',
    config,
    now: () => clock.ms,
    uuid: () => `${hex(8)}-${hex(4)}-4${hex(3)}-8${hex(3)}-${hex(12)}`,
    snapshotId: () => 1 + Math.floor(next() * 2 ** 40),
    clock,
  };
}

/** A row as read back from the table's data files. */
export interface ReadRow {
  shard: string;
  seq: number;
  offset: number;
  position: number;
  ingested_at: number;
  key: string | null;
  op: string;
  row: string | null;
  [column: string]: unknown;
}

/** Every row of the table's current snapshot, read with hyparquet from the files its manifests list, sorted by shard and offset. */
export async function readTable(deps: TableDeps, table: string): Promise<ReadRow[]> {
  const loaded = await loadCurrent(deps.store, table);
  if (!loaded) return [];
  const out: ReadRow[] = [];
  for (const live of await liveFiles(
    deps,
    table,
    loaded.metadata,
    currentSnapshot(loaded.metadata),
  )) {
    const bytes = await deps.store.get(
      keyOfUri(loaded.metadata.location, table, live.file.file_path),
    );
    if (!bytes) throw new Error(`missing ${live.file.file_path}`);
    const buffer = bytes.buffer.slice(
      bytes.byteOffset,
      bytes.byteOffset + bytes.byteLength,
    ) as ArrayBuffer;
    const { compressors } = await import('hyparquet-compressors');
    const rows = (await parquetReadObjects({ file: buffer, compressors })) as Record<
      string,
      unknown
    >[];
    for (const row of rows) {
      out.push({
        ...row,
        seq: Number(row.seq),
        offset: Number(row.offset),
        position: Number(row.position),
        ingested_at:
          row.ingested_at instanceof Date ? row.ingested_at.getTime() : Number(row.ingested_at),
      } as ReadRow);
    }
  }
  return out.sort((a, b) => (a.shard < b.shard ? -1 : a.shard > b.shard ? 1 : a.offset - b.offset));
}

/**
 * The commit the golden files pin (`golden.test.ts` checks them,
 * `write-golden.ts` writes them): shard `orders-eu`, one keyless and one keyed
 * row, into table `orders_eu` with two typed columns, partitioned by day.
 */
export async function goldenCommit(): Promise<{
  store: MemoryObjectStore;
  deps: TableDeps;
  report: AppendReport;
}> {
  const store = new MemoryObjectStore();
  const config = testConfig(
    '*',
    {},
    {
      orders_eu: {
        partition: 'day',
        columns: [
          { name: 'amount', type: 'decimal(12,2)' },
          { name: 'at', type: 'timestamptz' },
        ],
      },
    },
  );
  const deps = testDeps(store, config, 7);
  const wal = new WalWriter(store, 'orders-eu');
  await wal.append(
    [
      { text: '{"amount":1.25,"at":"2026-12-01T09:00:00Z"}' },
      { key: '"o1"', text: '{"amount":2}' },
    ],
    Date.UTC(2026, 11, 1, 9),
  );
  return { store, deps, report: await appendTable(deps, 'orders_eu', ['orders-eu']) };
}
