import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { InternalError, NotFoundError, UnavailableError } from '../../lib/errors.js';
import { metrics } from '../../lib/observability/telemetry.js';
import { MemoryObjectStore } from '../../lib/store/memory-store.js';
import { appendTable } from '../../lib/table/append.js';
import {
  followCommit,
  MAX_ATTEMPTS,
  moveCatalogPointer,
  type TableCatalog,
} from '../../lib/table/catalog.js';
import { compactTable } from '../../lib/table/compact.js';
import { expireSnapshots } from '../../lib/table/expire.js';
import { GlueCatalog } from '../../lib/table/glue-catalog.js';
import { loadCurrent } from '../../lib/table/metadata.js';
import { runTables } from '../../lib/table/run-tables.js';
import { GlueEndpoint } from './glue-endpoint.js';
import { readTable, testConfig, testDeps, WalWriter } from './helpers.js';

const DB = 'shardwal';
const v = (n: number) => `s3://bucket/tables/clicks/metadata/v${n}.metadata.json`;

let glue: GlueEndpoint;
let catalog: GlueCatalog;
beforeEach(() => {
  glue = new GlueEndpoint();
  glue.createTable(DB, 'clicks');
  catalog = new GlueCatalog(glue.client(), DB);
});
afterEach(() => vi.restoreAllMocks());

const updates = () => glue.requests.filter((r) => r.operation === 'UpdateTable');

describe('moveCatalogPointer', () => {
  it('points a table with no location at the metadata file and records no previous one', async () => {
    const move = await moveCatalogPointer(catalog, 'clicks', v(1));
    expect(move).toMatchObject({ status: 'moved', from: undefined, attempts: 1 });
    expect(glue.tables.get(`${DB}.clicks`)!.Parameters).toEqual({
      table_type: 'ICEBERG',
      metadata_location: v(1),
    });
  });

  it('moves forward and records the previous location', async () => {
    await moveCatalogPointer(catalog, 'clicks', v(1));
    const move = await moveCatalogPointer(catalog, 'clicks', v(2));
    expect(move).toMatchObject({ status: 'moved', from: v(1) });
    expect(glue.tables.get(`${DB}.clicks`)!.Parameters).toEqual({
      table_type: 'ICEBERG',
      metadata_location: v(2),
      previous_metadata_location: v(1),
    });
  });

  it('sends the table back as GetTable gave it, with the VersionId read and SkipArchive', async () => {
    await moveCatalogPointer(catalog, 'clicks', v(1));
    const [update] = updates();
    expect(update!.body).toEqual({
      DatabaseName: DB,
      VersionId: '0',
      SkipArchive: true,
      TableInput: {
        Name: 'clicks',
        Retention: 0,
        StorageDescriptor: {
          Columns: [{ Name: 'row', Type: 'string' }],
          Location: 's3://bucket/tables/clicks',
          Compressed: false,
          NumberOfBuckets: 0,
          SerdeInfo: {},
          SortColumns: [],
          StoredAsSubDirectories: false,
        },
        PartitionKeys: [],
        TableType: 'EXTERNAL_TABLE',
        Parameters: { table_type: 'ICEBERG', metadata_location: v(1) },
      },
    });
  });

  it('never moves a pointer back from a newer version (G1)', async () => {
    await moveCatalogPointer(catalog, 'clicks', v(7));
    const move = await moveCatalogPointer(catalog, 'clicks', v(6));
    expect(move).toMatchObject({ status: 'current', from: v(7) });
    expect(glue.location(DB, 'clicks')).toBe(v(7));
    expect(updates()).toHaveLength(1);
  });

  it('moves a pointer that names no metadata version (a foreign or hand-set one)', async () => {
    glue.update(`${DB}.clicks`, { Parameters: { table_type: 'ICEBERG', metadata_location: 'x' } });
    expect((await moveCatalogPointer(catalog, 'clicks', v(3))).status).toBe('moved');
    expect(glue.location(DB, 'clicks')).toBe(v(3));
  });

  it('re-reads and moves on the new version when Glue refuses a stale VersionId (G2)', async () => {
    await moveCatalogPointer(catalog, 'clicks', v(1));
    // Another committer moves the pointer to v2 between our GetTable and UpdateTable.
    glue.script.UpdateTable = [
      {
        before: () =>
          glue.update(`${DB}.clicks`, {
            Parameters: { table_type: 'ICEBERG', metadata_location: v(2) },
          }),
      },
    ];
    const move = await moveCatalogPointer(catalog, 'clicks', v(3));
    expect(move).toMatchObject({ status: 'moved', from: v(2), attempts: 2 });
    expect(glue.tables.get(`${DB}.clicks`)!.Parameters).toMatchObject({
      metadata_location: v(3),
      previous_metadata_location: v(2),
    });
  });

  it('stops without moving when the concurrent update went past its version (G1, G2)', async () => {
    glue.script.UpdateTable = [
      {
        before: () =>
          glue.update(`${DB}.clicks`, {
            Parameters: { table_type: 'ICEBERG', metadata_location: v(5) },
          }),
      },
    ];
    const move = await moveCatalogPointer(catalog, 'clicks', v(3));
    expect(move).toMatchObject({ status: 'current', from: v(5), attempts: 2 });
    expect(glue.location(DB, 'clicks')).toBe(v(5));
  });

  it(`gives up after ${MAX_ATTEMPTS} refused updates in a row`, async () => {
    glue.script.UpdateTable = Array.from({ length: MAX_ATTEMPTS }, () => ({
      error: 'ConcurrentModificationException',
      status: 400,
    }));
    const move = await moveCatalogPointer(catalog, 'clicks', v(1));
    expect(move).toMatchObject({ status: 'conflicts', attempts: MAX_ATTEMPTS });
    expect(updates()).toHaveLength(MAX_ATTEMPTS);
    expect(glue.location(DB, 'clicks')).toBeUndefined();
  });
});

describe('GlueCatalog', () => {
  describe('read', () => {
    it('throws NotFoundError when Glue has no such table (EntityNotFoundException)', async () => {
      await expect(catalog.read('orders')).rejects.toBeInstanceOf(NotFoundError);
    });

    it('throws UnavailableError when Glue throttles', async () => {
      glue.script.GetTable = [{ error: 'ThrottlingException', status: 400, message: 'Rate' }];
      await expect(catalog.read('clicks')).rejects.toBeInstanceOf(UnavailableError);
    });

    it('throws UnavailableError on a Glue service fault', async () => {
      glue.script.GetTable = [{ error: 'InternalServiceException', status: 500 }];
      await expect(catalog.read('clicks')).rejects.toBeInstanceOf(UnavailableError);
    });

    it('throws InternalError naming what Glue said when access is denied', async () => {
      glue.script.GetTable = [{ error: 'AccessDeniedException', status: 400, message: 'no' }];
      await expect(catalog.read('clicks')).rejects.toThrow(
        new InternalError('Glue GetTable shardwal.clicks: AccessDeniedException: no'),
      );
    });
  });

  describe('update', () => {
    it("answers 'conflict' to ConcurrentModificationException and throws other refusals", async () => {
      const entry = await catalog.read('clicks');
      glue.script.UpdateTable = [
        { error: 'ConcurrentModificationException', status: 400 },
        { error: 'EntityNotFoundException', status: 400 },
      ];
      expect(await catalog.update('clicks', entry, v(1))).toBe('conflict');
      await expect(catalog.update('clicks', entry, v(1))).rejects.toBeInstanceOf(NotFoundError);
    });
  });
});

describe('followCommit', () => {
  it('reports a failure and returns instead of throwing (G3)', async () => {
    const spy = vi.spyOn(metrics, 'addMetric');
    glue.script.GetTable = [{ error: 'ThrottlingException', status: 400 }];
    expect(await followCommit(catalog, 'clicks', v(1))).toBeUndefined();
    expect(spy).toHaveBeenCalledWith('TableCatalogErrors', 'Count', 1);
  });

  it('reports a move that gave up', async () => {
    const spy = vi.spyOn(metrics, 'addMetric');
    glue.script.UpdateTable = Array.from({ length: MAX_ATTEMPTS }, () => ({
      error: 'ConcurrentModificationException',
      status: 400,
    }));
    expect((await followCommit(catalog, 'clicks', v(1)))?.status).toBe('conflicts');
    expect(spy).toHaveBeenCalledWith('TableCatalogErrors', 'Count', 1);
  });
});

describe('commits with a catalog', () => {
  async function setup() {
    const store = new MemoryObjectStore();
    const deps = { ...testDeps(store, testConfig('clicks-*=clicks')), catalog };
    deps.locationBase = 's3://bucket';
    const wal = new WalWriter(store, 'clicks-0');
    return { store, deps, wal };
  }

  it('moves the Glue pointer after every commit: append, compaction, expiry', async () => {
    const { store, deps, wal } = await setup();
    for (let i = 0; i < 3; i++) {
      await wal.append([{ text: `{"n":${i}}` }], deps.clock.ms);
      deps.clock.ms += 1000;
      await appendTable(deps, 'clicks', ['clicks-0']);
      expect(glue.location(DB, 'clicks')).toBe(v((await loadCurrent(store, 'clicks'))!.version));
    }
    deps.clock.ms += 1000;
    expect(await compactTable(deps, 'clicks')).toMatchObject({ status: 'compacted' });
    expect(glue.location(DB, 'clicks')).toBe(v(4));
    deps.clock.ms += 1000;
    expect((await expireSnapshots(deps, 'clicks')).expired.length).toBeGreaterThan(0);
    expect(glue.location(DB, 'clicks')).toBe(v(5));
    expect(glue.tables.get(`${DB}.clicks`)!.Parameters!.previous_metadata_location).toBe(v(4));
  });

  it('commits once and reports when Glue fails; the next run catches the pointer up (G3)', async () => {
    const { store, deps, wal } = await setup();
    await wal.append([{ text: '{"n":1}' }, { text: '{"n":2}' }], deps.clock.ms);
    glue.script.GetTable = [{ error: 'InternalServiceException', status: 500 }];
    const first = await runTables(deps, ['clicks-0']);
    expect(first.tables[0]!.append).toMatchObject({ status: 'committed', version: 1, rows: 2 });
    expect(first.tables[0]!.error).toBeUndefined();
    // The catch-up at the end of the same run already moved it.
    expect(glue.location(DB, 'clicks')).toBe(v(1));

    await wal.append([{ text: '{"n":3}' }], deps.clock.ms);
    deps.clock.ms += 1000;
    glue.script.GetTable = [
      { error: 'InternalServiceException', status: 500 },
      { error: 'InternalServiceException', status: 500 },
    ];
    const second = await runTables(deps, ['clicks-0']);
    expect(second.tables[0]!.append).toMatchObject({ status: 'committed', version: 2 });
    expect(glue.location(DB, 'clicks')).toBe(v(1));

    // Nothing new: the run commits nothing and moves the lagging pointer.
    deps.clock.ms += 1000;
    const third = await runTables(deps, ['clicks-0']);
    expect(third.tables[0]!.append?.status).toBe('nothing-new');
    expect(third.tables[0]!.catalog).toMatchObject({ status: 'moved', from: v(1), to: v(2) });
    expect(glue.location(DB, 'clicks')).toBe(v(2));
    expect((await readTable(deps, 'clicks')).map((r) => r.row)).toEqual([
      '{"n":1}',
      '{"n":2}',
      '{"n":3}',
    ]);
    expect((await loadCurrent(store, 'clicks'))!.version).toBe(2);
  });

  it('commits when the catalog throws something that is no shardwal error', async () => {
    const { deps, wal } = await setup();
    const broken: TableCatalog = {
      name: 'broken',
      read: () => Promise.reject(new TypeError('boom')),
      update: () => Promise.reject(new TypeError('boom')),
    };
    await wal.append([{ text: '{"n":1}' }], deps.clock.ms);
    const report = await appendTable({ ...deps, catalog: broken }, 'clicks', ['clicks-0']);
    expect(report).toMatchObject({ status: 'committed', version: 1, rows: 1, conflicts: 0 });
  });
});
