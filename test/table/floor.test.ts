/** Tables are a retention floor: export's retention keeps every WAL position a table has not committed. */
import { describe, expect, it } from 'vitest';
import { exportShard } from '../../lib/export/export-shard.js';
import { appendTable } from '../../lib/table/append.js';
import { tableHold } from '../../lib/table/floor.js';
import { keysOf } from '../export/helpers.js';
import { exportDepsOf, TestShard } from '../recovery/support.js';
import { fixture, useDynalite } from '../support/harness.js';
import { testConfig, testDeps } from './helpers.js';

const dynalite = useDynalite();
const RETENTION_MS = 60_000;

async function run(commitTableAfterRound: number | undefined) {
  const f = await fixture(dynalite(), {
    walRetentionMs: RETENTION_MS,
    exportRetentionMs: RETENTION_MS,
  });
  const s = new TestShard(f);
  const config = testConfig('s1=t');
  const deps = testDeps(f.memory, config);
  const exportDeps = exportDepsOf(f, { tableHold: tableHold(f.memory, config) });
  let last: Awaited<ReturnType<typeof exportShard>> | undefined;
  for (let round = 0; round < 4; round++) {
    await s.keyed([{ id: `k${round}`, v: round }]);
    await s.flush();
    await s.keyless([{ round }]);
    await s.flush();
    if (round === commitTableAfterRound) {
      deps.clock.ms = f.clock.now();
      expect((await appendTable(deps, 't', ['s1'])).status).toBe('committed');
    }
    last = await exportShard(exportDeps, 's1');
    f.clock.advance(RETENTION_MS + 1);
  }
  return { f, retention: last!.retention! };
}

describe('retire', () => {
  describe('with a table over the shard', () => {
    it('keeps the WAL from the table high-water when the table lags the exports', async () => {
      const { f, retention } = await run(1);
      expect(retention.wal.retiredBelow).toBe(4);
      expect(retention.note).toContain('the table holds WAL positions from 4');
      expect(keysOf(f.memory).wal).toEqual([4, 5, 6, 7]);
    });

    it('retires nothing before the table first committed', async () => {
      const { f } = await run(undefined);
      expect(keysOf(f.memory).wal).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    });

    it('retires as without a table once the table is past the exports', async () => {
      const { f } = await run(3);
      expect(keysOf(f.memory).wal).toEqual([6, 7]);
    });
  });
});
