import { afterEach, describe, expect, it, vi } from 'vitest';
import { metrics } from '../../lib/observability/telemetry.js';
import { walKey } from '../../lib/paths.js';
import { MemoryObjectStore } from '../../lib/store/memory-store.js';
import { appendTable } from '../../lib/table/append.js';
import { maxLagMs, tableLag } from '../../lib/table/lag.js';
import { runTables } from '../../lib/table/run-tables.js';
import { testConfig, testDeps, WalWriter } from './helpers.js';

afterEach(() => vi.restoreAllMocks());

const MINUTE = 60_000;

function setup() {
  const store = new MemoryObjectStore();
  const deps = testDeps(store, testConfig('clicks-*=clicks'));
  return { store, deps, a: new WalWriter(store, 'clicks-0'), b: new WalWriter(store, 'clicks-1') };
}

describe('tableLag', () => {
  it('is the age of the first WAL object a never-committed table has not read', async () => {
    const { deps, a } = setup();
    await a.append([{ text: '{"n":1}' }], deps.clock.ms - 3 * MINUTE);
    await a.append([{ text: '{"n":2}' }], deps.clock.ms - MINUTE);
    expect(await tableLag(deps, 'clicks', ['clicks-0'])).toEqual([
      { shard: 'clicks-0', position: 0, lagMs: 3 * MINUTE },
    ]);
  });

  it('is the age of the object at the high-water after a commit, 0 for a caught-up shard', async () => {
    const { deps, a, b } = setup();
    await a.append([{ text: '{"n":1}' }], deps.clock.ms - 5 * MINUTE);
    await b.append([{ text: '{"n":2}' }], deps.clock.ms - 5 * MINUTE);
    await appendTable(deps, 'clicks', ['clicks-0', 'clicks-1']);
    await a.append([{ text: '{"n":3}' }], deps.clock.ms - 2 * MINUTE);
    const lags = await tableLag(deps, 'clicks', ['clicks-0', 'clicks-1']);
    expect(lags).toEqual([
      { shard: 'clicks-0', position: 1, lagMs: 2 * MINUTE },
      { shard: 'clicks-1', position: null, lagMs: 0 },
    ]);
    expect(maxLagMs(lags)).toBe(2 * MINUTE);
  });

  it('is 0 for a shard with no WAL', async () => {
    const { deps } = setup();
    expect(maxLagMs(await tableLag(deps, 'clicks', ['clicks-9']))).toBe(0);
  });
});

describe('runTables', () => {
  describe('lag', () => {
    it('emits TableLagMs once a run: the largest lag over its tables after the commits', async () => {
      const { deps, a } = setup();
      const spy = vi.spyOn(metrics, 'addMetric');
      await a.append([{ text: '{"n":1}' }], deps.clock.ms - 10 * MINUTE);
      // The byte budget stops the commit after one object: the second stays behind.
      deps.config.maxCommitBytes = 1;
      await a.append([{ text: '{"n":2}' }], deps.clock.ms - 7 * MINUTE);
      const report = await runTables(deps, ['clicks-0']);
      expect(report.tables[0]).toMatchObject({ append: { rows: 1 }, lagMs: 7 * MINUTE });
      const lagCalls = spy.mock.calls.filter(([name]) => name === 'TableLagMs');
      expect(lagCalls).toEqual([['TableLagMs', 'Milliseconds', 7 * MINUTE]]);
    });

    it('emits 0 when no shard has a table, so a running committer is never silent', async () => {
      const { deps } = setup();
      const spy = vi.spyOn(metrics, 'addMetric');
      await runTables(deps, ['orders']);
      expect(spy.mock.calls.filter(([name]) => name === 'TableLagMs')).toEqual([
        ['TableLagMs', 'Milliseconds', 0],
      ]);
    });

    it('measures the lag of a table whose run failed', async () => {
      const { store, deps, a } = setup();
      await a.append([{ text: '{"n":1}' }], deps.clock.ms - 4 * MINUTE);
      const get = store.get.bind(store);
      let failures = 1;
      vi.spyOn(store, 'get').mockImplementation(async (key) => {
        if (key === walKey('clicks-0', 0) && failures-- > 0) throw new Error('S3 down');
        return get(key);
      });
      const report = await runTables(deps, ['clicks-0']);
      expect(report.tables[0]).toMatchObject({ error: 'S3 down', lagMs: 4 * MINUTE });
    });
  });
});
