import { afterEach, describe, expect, it, vi } from 'vitest';
import { metrics } from '../../lib/observability/telemetry.js';
import { recoveryDepsFrom } from '../../lib/recovery/deps.js';
import { FindingKind } from '../../lib/recovery/findings.js';
import { renderVerifyAllReport } from '../../lib/recovery/render.js';
import { verifyAll } from '../../lib/recovery/verify-all.js';
import { verifyTables } from '../../lib/recovery/verify-tables.js';
import { appendTable } from '../../lib/table/append.js';
import { parseTableRoutes } from '../../lib/table/names.js';
import { metadataKey } from '../../lib/table/paths.js';
import { PartitionBy } from '../../lib/table/schema.js';
import { fixture, useDynalite } from '../support/harness.js';
import { testConfig, testDeps } from '../table/helpers.js';
import { recoveryDepsOf, TestShard } from './support.js';

const dynalite = useDynalite();
const HOUR = 3_600_000;
afterEach(() => vi.restoreAllMocks());

/** Shard `clicks` flushed through the real path, committed to a table that declares `n` boolean. */
async function refusing() {
  const f = await fixture(dynalite());
  const s = new TestShard(f, 'clicks');
  await s.keyless([{ n: 1 }, { n: true }, { n: 'yes' }]);
  await s.flush();
  const config = testConfig(
    'clicks',
    {},
    {
      clicks: { partition: PartitionBy.day, columns: [{ name: 'n', type: 'boolean' }] },
    },
  );
  const tableDeps = { ...testDeps(f.memory, config), now: f.clock.now };
  const append = await appendTable(tableDeps, 'clicks', ['clicks']);
  expect(append).toMatchObject({ status: 'committed', refused: { n: 2 } });
  const deps = {
    ...recoveryDepsOf(f),
    tables: { routes: parseTableRoutes('clicks'), findingWindowMs: HOUR },
  };
  return { f, deps, snapshotId: append.snapshotId };
}

describe('verifyAll', () => {
  describe('with tables', () => {
    it('reports an append that left typed values null as a finding, counted under its kind', async () => {
      const { deps, snapshotId } = await refusing();
      const single = { addDimension: vi.fn(), addMetric: vi.fn() };
      vi.spyOn(metrics, 'singleMetric').mockReturnValue(single as never);
      const report = await verifyAll(deps);
      expect(report.findings).toBe(1);
      expect(report.tables).toMatchObject({ tables: ['clicks'], failed: [] });
      expect(report.tables!.findings).toEqual([
        {
          kind: FindingKind.tableValuesRefused,
          table: 'clicks',
          shards: ['clicks'],
          detail: expect.stringContaining(
            `the append of snapshot ${snapshotId} at `,
          ) as unknown as string,
        },
      ]);
      expect(report.tables!.findings[0]!.detail).toMatch(
        /\(shards clicks\) left 2 typed value\(s\) null, not exact in their declared type: n 2; the row column keeps their text/,
      );
      expect(single.addDimension).toHaveBeenCalledWith('kind', 'table-values-refused');
      expect(single.addMetric).toHaveBeenCalledWith('VerifyFindings', 'Count', 1);
      expect(renderVerifyAllReport(report)).toContain(
        'table clicks: table-values-refused: the append',
      );
    });

    it('reports nothing for appends older than the finding window (the run before reported them)', async () => {
      const { f, deps } = await refusing();
      f.clock.advance(HOUR + 1);
      const report = await verifyAll(deps);
      expect(report.findings).toBe(0);
      expect(report.tables).toEqual({ tables: ['clicks'], findings: [], failed: [] });
    });

    it('checks no table when tables are off', async () => {
      const { f } = await refusing();
      expect((await verifyAll(recoveryDepsOf(f))).tables).toBeUndefined();
    });
  });
});

describe('verifyTables', () => {
  it('reports a table whose metadata cannot be read and goes on', async () => {
    const { f, deps } = await refusing();
    await f.memory.putIfAbsent(metadataKey('clicks', 2), new TextEncoder().encode('{not json'));
    const report = await verifyTables(deps, deps.tables, ['clicks']);
    expect(report.findings).toEqual([]);
    expect(report.failed.map((x) => x.table)).toEqual(['clicks']);
  });
});

describe('recoveryDepsFrom', () => {
  it('reads the tables and the finding window from the environment', async () => {
    const f = await fixture(dynalite());
    const parts = { table: f.table, store: f.store, now: f.clock.now, owner: 'x' };
    expect(recoveryDepsFrom(f.config, parts).tables).toBeUndefined();
    vi.stubEnv('SHARDWAL_TABLES', 'clicks-*=clicks');
    vi.stubEnv('SHARDWAL_TABLE_FINDING_WINDOW_MS', '900000');
    const tables = recoveryDepsFrom(f.config, parts).tables!;
    expect(tables.findingWindowMs).toBe(900_000);
    expect(tables.routes.map((r) => r.table)).toEqual(['clicks']);
    vi.stubEnv('SHARDWAL_TABLE_FINDING_WINDOW_MS', '0');
    expect(() => recoveryDepsFrom(f.config, parts)).toThrow(
      /SHARDWAL_TABLE_FINDING_WINDOW_MS="0": expected a whole number of at least 1/,
    );
    vi.unstubAllEnvs();
  });
});
