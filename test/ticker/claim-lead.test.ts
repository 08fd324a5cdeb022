import { QueryCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { PENDING_INDEX } from '../../lib/memtable/table.js';
import { CLAIM_LEAD, ClaimLead, sleepUntil, type TickSlot } from '../../lib/ticker/claim-lead.js';
import { runTick, type TickDeps } from '../../lib/ticker/tick.js';
import { FlushTimeEstimate } from '../../lib/ticker/tick-plan.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';
import { scriptedTable } from '../support/scripted-table.js';
import {
  type AckedBatch,
  drain,
  expectWalHolds,
  leaveStaleMarker,
  putBatch,
  readWalChain,
} from '../support/wal-chain.js';

const dynalite = useDynalite();

/** A lead whose last tick found pending shards, so the next claims ahead (K5). */
function busyLead(initialMs?: number): ClaimLead {
  const lead = new ClaimLead(initialMs);
  lead.sawShards(1);
  return lead;
}

/** A slot 50 ms ahead of the fixture's clock; `duringLead` runs where the tick waits for it. */
function slotAhead(f: Fixture, duringLead: () => Promise<void>, lead = busyLead()): TickSlot {
  return {
    atMs: f.clock.now() + 50,
    intervalMs: 1_000,
    lead,
    sleep: async (ms) => {
      await duringLead();
      f.clock.advance(ms);
    },
  };
}

function tickDeps(f: Fixture, slot: TickSlot, overrides: Partial<TickDeps> = {}): TickDeps {
  return {
    flush: f.flushDeps('ticker'),
    concurrency: 4,
    maxShardsPerTick: 64,
    flushTime: new FlushTimeEstimate(),
    slot,
    ...overrides,
  };
}

describe('runTick ahead of its slot (K1-K3)', () => {
  it('claims before the slot and resolves at it: a batch put during the lead is in the object', async () => {
    const f = await fixture(dynalite());
    const acked: AckedBatch[] = [await putBatch(f.put, 'a', [{ n: 1 }])];
    let leaseDuringLead: string | undefined;
    const slot = slotAhead(f, async () => {
      leaseDuringLead = (await readShardRecord(f.table, 'a'))?.leaseOwner;
      acked.push(await putBatch(f.put, 'a', [{ n: 2 }]));
    });
    const summary = await runTick(tickDeps(f, slot));
    expect(leaseDuringLead).toBe('ticker');
    expect(summary.outcomes).toMatchObject([
      { status: 'flushed', shard: 'a', firstSeq: 1, lastSeq: 2 },
    ]);
    const objects = await expectWalHolds(f.store, f.table, 'a', acked);
    expect(objects).toHaveLength(1);
  });

  it('flushes in the same tick a shard that turned pending during the lead (K2)', async () => {
    const f = await fixture(dynalite());
    const a = [await putBatch(f.put, 'a', [{ n: 1 }])];
    const b: AckedBatch[] = [];
    const slot = slotAhead(f, async () => {
      b.push(await putBatch(f.put, 'b', [{ n: 2 }]));
    });
    const summary = await runTick(tickDeps(f, slot));
    expect(summary.activeShards).toBe(2);
    expect(summary.outcomes.map((o) => `${o.shard}:${o.status}`).sort()).toEqual([
      'a:flushed',
      'b:flushed',
    ]);
    await expectWalHolds(f.store, f.table, 'a', a);
    await expectWalHolds(f.store, f.table, 'b', b);
  });

  it('flushes at the slot a shard whose early claim found nothing, once a put made it pending (K2)', async () => {
    const f = await fixture(dynalite());
    const acked = [await putBatch(f.put, 'a', [{ n: 0 }])];
    await drain(f.flushDeps('earlier'), 'a');
    await leaveStaleMarker(f, 'a');
    const slot = slotAhead(f, async () => {
      acked.push(await putBatch(f.put, 'a', [{ n: 1 }]));
    });
    const summary = await runTick(tickDeps(f, slot));
    expect(summary.outcomes).toMatchObject([{ status: 'flushed', shard: 'a', firstSeq: 2 }]);
    await expectWalHolds(f.store, f.table, 'a', acked);
  });

  it('still flushes the shards it claimed when the second listing fails; the newcomer waits a tick', async () => {
    const f = await fixture(dynalite());
    const scripted = scriptedTable(f.table);
    const a = [await putBatch(f.put, 'a', [{ n: 1 }])];
    const slot = slotAhead(f, async () => {
      await putBatch(f.put, 'b', [{ n: 2 }]);
      scripted.add({
        match: (c) => c instanceof QueryCommand && c.input.IndexName === PENDING_INDEX,
        effect: 'fail',
      });
    });
    const summary = await runTick(
      tickDeps(f, slot, { flush: f.flushDeps('ticker', { table: scripted.table }) }),
    );
    expect(scripted.hits.fail).toBe(1);
    expect(summary.outcomes).toMatchObject([{ status: 'flushed', shard: 'a' }]);
    await expectWalHolds(f.store, f.table, 'a', a);
    expect(await readWalChain(f.store, 'b')).toEqual([]);
    expect((await readShardRecord(f.table, 'b'))?.pending).toBe(true);
  });

  it('claims nothing early when it starts at or after its slot', async () => {
    const f = await fixture(dynalite());
    await putBatch(f.put, 'a', [{ n: 1 }]);
    let waited = false;
    const duringLead = async () => {
      waited = true;
    };
    const slot = { ...slotAhead(f, duringLead), atMs: f.clock.now() };
    const summary = await runTick(tickDeps(f, slot));
    expect(waited).toBe(false);
    expect(summary.outcomes).toMatchObject([{ status: 'flushed', shard: 'a' }]);
  });

  it('learns from the wave: one ready after its slot lengthens the lead (K4)', async () => {
    const f = await fixture(dynalite());
    await putBatch(f.put, 'a', [{ n: 1 }]);
    const lead = busyLead(10);
    // Each reading of this clock takes 5 ms: the slot is ahead at the start, passed once claimed.
    const slot: TickSlot = {
      atMs: f.clock.now() + 8,
      intervalMs: 1_000,
      lead,
      sleep: async () => undefined,
    };
    const slowNow = () => {
      f.clock.advance(5);
      return f.clock.now();
    };
    await runTick(tickDeps(f, slot, { flush: f.flushDeps('ticker', { now: slowNow }) }));
    expect(lead.ms(1_000)).toBe(Math.round(10 * CLAIM_LEAD.lateFactor + 1));
  });
});

describe('runTick ahead of its slot in an idle process (K5)', () => {
  it('waits for the slot and lists once, then leads the next tick once it found shards', async () => {
    const f = await fixture(dynalite());
    const scripted = scriptedTable(f.table);
    let listings = 0;
    scripted.add({
      match: (c) => {
        if (c instanceof QueryCommand && c.input.IndexName === PENDING_INDEX) listings++;
        return false;
      },
      effect: 'fail',
    });
    const lead = new ClaimLead();
    expect(lead.busy).toBe(false);
    const acked: AckedBatch[] = [];
    let leaseDuringLead: string | undefined;
    const slot = slotAhead(
      f,
      async () => {
        acked.push(await putBatch(f.put, 'a', [{ n: 1 }]));
        leaseDuringLead = (await readShardRecord(f.table, 'a'))?.leaseOwner;
      },
      lead,
    );
    const deps = tickDeps(f, slot, { flush: f.flushDeps('ticker', { table: scripted.table }) });
    const summary = await runTick(deps);
    expect(listings).toBe(1);
    expect(leaseDuringLead).toBeUndefined();
    expect(summary.outcomes).toMatchObject([{ status: 'flushed', shard: 'a' }]);
    await expectWalHolds(f.store, f.table, 'a', acked);
    expect(lead.busy).toBe(true);
  });
});

describe('ClaimLead', () => {
  it('starts at its initial lead, within a quarter of the interval', () => {
    expect(new ClaimLead().ms(1_000)).toBe(CLAIM_LEAD.initialMs);
    expect(new ClaimLead(100).ms(100)).toBe(25);
    expect(new ClaimLead(0).ms(1_000)).toBe(1);
  });

  it('grows by a fifth (plus 1 ms) after a late wave and shrinks by 3 % after one in time', () => {
    const lead = new ClaimLead(20);
    lead.observe(1_001, 1_000, 1_000);
    expect(lead.ms(1_000)).toBe(25);
    lead.observe(999, 1_000, 1_000);
    expect(lead.ms(1_000)).toBe(24); // 25 × 0.97 = 24.25
  });

  it('settles where about one wave in seven is late', () => {
    const lead = new ClaimLead(1);
    // Waves take 10-29 ms, evenly; a wave is late when it takes longer than the lead.
    let late = 0;
    for (let i = 0; i < 20_000; i++) {
      const took = 10 + (i % 20);
      if (i >= 10_000 && took > lead.ms(1_000)) late++;
      lead.observe(took, lead.ms(1_000), 1_000);
    }
    expect(late / 10_000).toBeGreaterThan(0.08);
    expect(late / 10_000).toBeLessThan(0.2);
  });

  it('never leads by more than a quarter of the interval, however late the waves', () => {
    const lead = new ClaimLead(10);
    for (let i = 0; i < 100; i++) lead.observe(10_000, 0, 100);
    expect(lead.ms(100)).toBe(25);
  });
});

describe('sleepUntil', () => {
  it('sleeps until the slot when it is ahead', async () => {
    const sleeps: number[] = [];
    const slot = {
      atMs: 1_250,
      intervalMs: 1_000,
      sleep: async (ms: number) => void sleeps.push(ms),
    };
    await sleepUntil(slot, () => 1_000);
    await sleepUntil(slot, () => 1_300);
    expect(sleeps).toEqual([250]);
  });

  it('sleeps at most one interval when the wall clock stepped back after the slot was chosen', async () => {
    const sleeps: number[] = [];
    const slot = {
      atMs: 1_000,
      intervalMs: 1_000,
      sleep: async (ms: number) => void sleeps.push(ms),
    };
    await sleepUntil(slot, () => 1_000 - 30_000);
    expect(sleeps).toEqual([1_000]);
  });
});
