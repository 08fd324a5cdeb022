/**
 * The deterministic simulation of the whole shard lifecycle (`run-schedule.ts`):
 * 250 seeded schedules in CI (no more CPU than 500 took before the schedules
 * modelled expiry, retention, FIFO groups and tail readers), in slices. A
 * failure names the seed; `npm run sim -- --schedules 1 --seed <seed>` replays
 * it and prints its shrunk trace.
 */
import { describe, expect, it } from 'vitest';
import { type LifecycleCounts, runSchedule } from './run-schedule.js';
import { paramsFor } from './workload.js';

const SCHEDULES = 250;
const SLICES = 5;
const FIRST_SEED = Number(process.env.SHARDWAL_SIM_SEED ?? 1);

/** What issue 20's areas did over the slices, summed. */
const lifecycle: Partial<LifecycleCounts> = {};

describe('simulation', () => {
  for (let slice = 0; slice < SLICES; slice++) {
    const from = FIRST_SEED + (slice * SCHEDULES) / SLICES;
    const to = from + SCHEDULES / SLICES - 1;
    it(`keeps every guarantee over schedules ${from}..${to}`, async () => {
      const failures: string[] = [];
      for (let seed = from; seed <= to; seed++) {
        const result = await runSchedule(paramsFor(seed), 0);
        for (const [name, n] of Object.entries(result.stats.lifecycle)) {
          const field = name as keyof LifecycleCounts;
          lifecycle[field] = (lifecycle[field] ?? 0) + n;
        }
        if (result.violations.length > 0) {
          failures.push(`seed ${seed}: ${result.violations.slice(0, 3).join(' | ')}`);
        }
      }
      expect(failures).toEqual([]);
    }, 600_000);
  }

  it('exercises every lifecycle area the checks cover (renewals, refusals, retention, FIFO, readers, TTL, quarantine, tables)', () => {
    // Only over the CI seeds, and only when the slices ran (not under a -t filter).
    if (FIRST_SEED !== 1 || Object.keys(lifecycle).length === 0) return;
    expect(lifecycle.renewals).toBeGreaterThan(0);
    expect(lifecycle.stallRefusals).toBeGreaterThan(0);
    expect(lifecycle.retired).toBeGreaterThan(0);
    expect(lifecycle.fifoHeldBack).toBeGreaterThan(0);
    expect(lifecycle.readerRows).toBeGreaterThan(0);
    expect(lifecycle.expiredItems).toBeGreaterThan(0);
    expect(lifecycle.quarantined).toBeGreaterThan(0);
    expect(lifecycle.tableCommits).toBeGreaterThan(0);
    expect(lifecycle.tableSegments).toBeGreaterThan(0);
    expect(lifecycle.tableFilesDeleted).toBeGreaterThan(0);
    expect(lifecycle.tableRowsRetired).toBeGreaterThan(0);
  });

  it('gives actors whose clocks run behind a wall-clock instant from the first step', async () => {
    // Seed 3097641 once failed here: a size-trigger flush 78 ms into the schedule, on a clock
    // 93 ms behind, built a WAL header with createdAtMs -15, which the encoder rightly refuses.
    const result = await runSchedule({ ...paramsFor(3_097_641), claimAhead: false }, 0);
    expect(result.violations).toEqual([]);
  });

  it('keeps pending batches alive through a lost flush claim (seeds 7020974 and 7022862)', async () => {
    // A 25,000-schedule run failed V8 at these seeds (at 088e7fa: short lifetimes, a big put).
    // Cause: a claim whose response was lost left its shard leased and unflushed for a lease
    // (fixed: F5 in lib/fence/claim.ts), while the sim's scheduled verify stopped at the first
    // shard it could not verify and never renewed the stalled shard's batches (it runs
    // `verifyAll` now, as the product's schedule does).
    for (const seed of [7_020_974, 7_022_862]) {
      for (const flushOutage of [false, true]) {
        const result = await runSchedule({ ...paramsFor(seed), flushOutage }, 0);
        expect(result.violations).toEqual([]);
      }
    }
  });

  it('renews a stalled shard even when its verify meets a store fault (seed 2000657)', async () => {
    // The scheduled verify renewed pending batches only after its S3 checks, which a transient
    // store error cut short: now the renewal comes first (keepPendingAlive in verify-heal.ts).
    const result = await runSchedule(paramsFor(2_000_657), 0);
    expect(result.violations).toEqual([]);
  });

  it('never leaves a manifest naming objects retention swept during a stalled export (seeds 617 and 1001423)', async () => {
    // An export stalled longer than the export retention wrote its manifest after the orphan
    // sweep deleted its not-yet-listed snapshot part (fixed: the export deadline and the check
    // after the write, D1-D3 in lib/export/deadline.ts). Seed 617 fails without the fix;
    // 1001423 failed on the code before the restore model, whose draws changed its schedule.
    for (const seed of [617, 1_001_423]) {
      const result = await runSchedule(paramsFor(seed), 0);
      expect(result.violations).toEqual([]);
    }
  });

  it("never leaves a manifest naming its base's parts after two later exports retired them (seed 7000063)", async () => {
    // An export held at a fault point while two later exports of its shard completed: the
    // second's retention retired the held export's base (no longer among the newest two, older
    // than the retention) with its part, which the held export's manifest then named (fixed:
    // D4 in lib/export/deadline.ts, T1 keeps an export until the one after it is older than A).
    // Fails without the fix.
    const result = await runSchedule(paramsFor(7_000_063), 0);
    expect(result.violations).toEqual([]);
  });

  it('loses no put a record restored behind retired WAL slots took (seeds 2000022, 2000028, 6004694, 10008577, 10014295 and 20002923)', async () => {
    // The restored record's walNextPos named slots retention had deleted: the flusher wrote
    // there, below the export, and called puts at reissued seqs durable, which the rebuild then
    // took as covered (fixed: I8 and I9 in lib/flush/flush-shard.ts); and the model's operator
    // did not re-run a `recover` that failed (fixed in run-schedule.ts). In 6004694 an
    // idempotent put died after reserving a reissued seq; the rebuild left that seq empty (its
    // next item was the old timeline's, so it looked long dead) and the retry's takeover read
    // it as landed (fixed: rule 3 in lib/recovery/reconcile-batches.ts). In 10008577 the
    // restore landed while a rebuild replayed, before its fence: the replay had indexed only the
    // objects above the old durableSeq, so batches the WAL held were quarantined as well (fixed:
    // rebuildShard replays again under the fence when the record went back). In 10014295 an
    // item the export covered, put on a clock ahead of the exporter's, read as younger than
    // the export and was quarantined although the export held its rows (fixed: C2 in
    // lib/recovery/seq-content.ts compares it with the WAL object below the export). In 20002923
    // the restored record's flusher read the old timeline's items past its nextSeq; one expired,
    // a put took its seq anew and was acked, and the commit called the old rows there durable
    // (fixed: I10 in lib/flush/flush-shard.ts poisons the shard first).
    for (const seed of [2_000_022, 2_000_028, 6_004_694, 10_008_577, 10_014_295, 20_002_923]) {
      const result = await runSchedule(paramsFor(seed), 0);
      expect(result.violations).toEqual([]);
      expect(result.stats.lifecycle.restores).toBe(1);
    }
  });

  it('never answers a repeat from an emptied seq read after the key window (seed 11013838)', async () => {
    // An SQS put's retry read the key's record, stalled 9 s, then found its recorded seq (sealed
    // void, then committed) empty below durableSeq: the void had expired, and the settle read
    // the emptied seq as a batch that landed and expired, so the message was acked with nothing
    // stored (fixed: the settle tells only within the key's window, and a reservation is made
    // only within the put deadline, lib/put/claim-key.ts and settle-seq.ts).
    const result = await runSchedule(paramsFor(11_013_838), 0);
    expect(result.violations).toEqual([]);
  });

  it('keeps a quarantined seq quarantined when a killed rebuild is run again (seeds 19008415 and 19009412)', async () => {
    // An operator's rebuild moved a reissued put's batch to the quarantine and was killed; the
    // re-run sealed the emptied seq void, and the put's retry took the void for "not landed"
    // and stored the rows again beside their quarantine copy (fixed: rule 3 in
    // lib/recovery/reconcile-batches.ts skips a seq this reset already quarantined).
    for (const seed of [19_008_415, 19_009_412]) {
      const result = await runSchedule(paramsFor(seed), 0);
      expect(result.violations).toEqual([]);
      expect(result.stats.lifecycle.restores).toBe(1);
    }
  });

  it('lets a table job whose base a newer version superseded start over (seeds 32000338 and 33000115)', async () => {
    // A committer (32000338) and a maintenance run (33000115) read a manifest list of the
    // version they loaded after a racing expiry had deleted it, and threw it as corrupt
    // (fixed: \`readOrStale\` in lib/table/commit-loop.ts; test/table/stale-base.test.ts).
    for (const seed of [32_000_338, 33_000_115]) {
      const result = await runSchedule(paramsFor(seed), 0);
      expect(result.violations).toEqual([]);
      expect(result.stats.lifecycle.tableCommits).toBeGreaterThan(0);
    }
  });

  it('takes the rows history retention removed from a table against the manifests, not a restored cursor (seed 42002651)', async () => {
    // Maintenance removed rows below the shard's historyKeptFrom cursor, then the shard record was
    // restored from a backup older than the cursor: the end-of-run check read the restored 0 and
    // counted the removed rows as lost (a checker artifact; V16 now reads the manifests' floors).
    const result = await runSchedule(paramsFor(42_002_651), 0);
    expect(result.violations).toEqual([]);
    expect(result.stats.lifecycle.restores).toBe(1);
  });

  it('holds a durable ack a record restore overtook to the end-of-run checks, not the rolled-back record (seed 23012396)', async () => {
    // The waiter read durableSeq past its seq, the answer was delayed past a restore of the
    // record, and the ack-time check compared it with the restored (older) record: a checker
    // artifact; the rows are in the WAL (fixed in run-schedule.ts's checkDurableAck).
    const result = await runSchedule(paramsFor(23_012_396), 0);
    expect(result.violations).toEqual([]);
    expect(result.stats.lifecycle.restores).toBe(1);
  });

  it('replays a seed exactly', async () => {
    const first = await runSchedule(paramsFor(3), 100_000);
    const second = await runSchedule(paramsFor(3), 100_000);
    expect(first.trace.length).toBeGreaterThan(100);
    expect(second.trace).toEqual(first.trace);
    expect(second.stats).toEqual(first.stats);
  });
});
