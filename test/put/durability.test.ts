import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { ErrorKind } from '../../lib/errors.js';
import { poisonShard } from '../../lib/fence/commit.js';
import { claimShard, flushHeld, flushShard } from '../../lib/flush/flush-shard.js';
import { handlePut } from '../../lib/http/put-route.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { CommitDelayEstimate, nextCommitMoment, waitDurable } from '../../lib/put/durable-wait.js';
import type { PutDeps } from '../../lib/put/put-rows.js';
import { bodyOf, EventFile, httpEvent } from '../support/events.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';

const dynalite = useDynalite();
const SHARD = 'orders';

/** Put deps on the real clock, so the bounded durable wait really runs out. */
function realTime(f: Fixture): PutDeps {
  return { ...f.put, now: Date.now, sleep: (ms) => sleep(ms) };
}

function durablePut(deps: PutDeps, key: string) {
  return handlePut(
    httpEvent(EventFile.apiPutDurable, { shard: SHARD, headers: { 'idempotency-key': key } }),
    deps,
  );
}

function bufferedPut(f: Fixture, deps: PutDeps = f.put) {
  return handlePut(
    httpEvent(EventFile.apiPut, { shard: SHARD, headers: { 'idempotency-key': undefined } }),
    deps,
  );
}

describe('durable puts', () => {
  it('answers 202 durable:false with the seq when no flush commits within the wait', async () => {
    const f = await fixture(dynalite(), { durableWaitMs: 150 });
    await bufferedPut(f);
    const started = Date.now();
    const result = await durablePut(realTime(f), 'k-timeout');
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(result.statusCode).toBe(202);
    expect(bodyOf(result)).toEqual({ shard: SHARD, seq: 2, rows: 2, durable: false });
    expect(await readShardRecord(f.table, SHARD)).toMatchObject({ nextSeq: 3, durableSeq: 0 });
  });

  it('answers 200 durable:true once a concurrent flush commits the covering WAL object, not before', async () => {
    const f = await fixture(dynalite(), { durableWaitMs: 20_000 });
    const deps = realTime(f);
    let answered = false;
    const put = durablePut(deps, 'k-durable').then((result) => {
      answered = true;
      return result;
    });
    // Wait until the put has buffered its batch and is waiting, then some more.
    while ((await readShardRecord(f.table, SHARD))?.nextSeq !== 2) await sleep(10);
    await sleep(150);
    expect(answered).toBe(false);
    expect(f.memory.size).toBe(0);

    // A flush loop, as the ticker would run it, until the waiter answers.
    const outcomes: string[] = [];
    while (!answered) {
      outcomes.push((await flushShard(f.flushDeps('ticker'), SHARD)).status);
      await sleep(20);
    }
    const result = await put;
    expect(result.statusCode).toBe(200);
    expect(bodyOf(result)).toEqual({ shard: SHARD, seq: 1, rows: 2, durable: true });
    // Before its batch head lands a flush may wait on the gap; one flush then covers it.
    expect(outcomes.filter((status) => status === 'flushed')).toHaveLength(1);
    expect(outcomes.every((status) => ['flushed', 'waiting-on-gap', 'idle'].includes(status))).toBe(
      true,
    );
    expect(await readShardRecord(f.table, SHARD)).toMatchObject({ durableSeq: 1, walNextPos: 1 });
  });

  it('wakes a waiting durable put with 503 and the reason when the shard is poisoned', async () => {
    const f = await fixture(dynalite(), { durableWaitMs: 20_000 });
    const put = durablePut(realTime(f), 'k-poison');
    while ((await readShardRecord(f.table, SHARD))?.nextSeq !== 2) await sleep(10);
    await poisonShard(f.table, SHARD, 'WAL object at position 0 diverged', Date.now());
    const result = await put;
    expect(result.statusCode).toBe(503);
    expect(bodyOf(result)).toEqual({
      error: { kind: ErrorKind.poisoned, message: expect.stringContaining('diverged') },
    });
  });

  it('refuses durable puts with 400 where they are switched off', async () => {
    const f = await fixture(dynalite(), { flushIntervalMs: 'off', durablePuts: 'off' });
    const result = await durablePut(f.put, 'k-off');
    expect(result.statusCode).toBe(400);
    expect(bodyOf(result)).toMatchObject({ error: { kind: ErrorKind.invalidInput } });
    expect(await readShardRecord(f.table, SHARD)).toBeUndefined();
  });
});

describe('the put path and the object store', () => {
  it('makes zero object store requests for any put, accepted or refused', async () => {
    const f = await fixture(dynalite(), { durableWaitMs: 20 });
    const deps = realTime(f);
    await bufferedPut(f, deps);
    await durablePut(deps, 'k-1');
    await durablePut(deps, 'k-1'); // idempotent repeat
    await handlePut(httpEvent(EventFile.apiPut, { shard: SHARD, body: '{"rows": [' }), deps);
    await handlePut(httpEvent(EventFile.apiPut, { shard: '../x' }), deps);
    await poisonShard(f.table, SHARD, 'test poison', Date.now());
    await bufferedPut(f, deps);
    expect(f.store.counts()).toEqual({ putIfAbsent: 0, get: 0, getStream: 0, list: 0, delete: 0 });
  });
});

describe('waitDurable', () => {
  /** A table whose shard-record reads are timed on a fake clock that only sleeps move. */
  function timedReads(f: Fixture, startMs: number) {
    let now = startMs;
    const readsAt: number[] = [];
    const table = {
      ...f.table,
      client: {
        send: (command: unknown) => {
          readsAt.push(now);
          return f.table.client.send(command as never);
        },
      } as unknown as typeof f.table.client,
    };
    const clock = {
      now: () => now,
      sleep: async (ms: number) => {
        now += ms;
      },
    };
    return { table, readsAt, clock };
  }

  const grid = { intervalMs: 1_000, commitDelayMs: 40, maxPollMs: 1_000 };

  it.each([
    // W1: the next grid tick is at 2000; its commit is expected 40 ms later.
    [1_234, 'the next grid tick'],
    // W1': the tick of 2000 resolves its batches after it fires: its commit at 2040 may hold this one.
    [2_010, 'the tick that just fired'],
  ])(
    'reads a fresh allocation made at %i first at the commit moment of %s, once when it is durable there',
    async (startMs) => {
      const f = await fixture(dynalite());
      await bufferedPut(f);
      await flushShard(f.flushDeps('ticker'), SHARD);
      const { table, readsAt, clock } = timedReads(f, startMs);
      const durable = await waitDurable(table, {
        shard: SHARD,
        seq: 1,
        generation: 0,
        waitMs: 5_000,
        ...grid,
        commitDelay: new CommitDelayEstimate(40),
        ...clock,
      });
      expect(durable).toBe(true);
      expect(readsAt).toEqual([2_040]);
    },
  );

  it('after a miss at the commit moment of the running tick, reads at the next one only, and learns nothing', async () => {
    const f = await fixture(dynalite());
    await bufferedPut(f);
    const { table, readsAt, clock } = timedReads(f, 2_010);
    const estimate = new CommitDelayEstimate(40);
    const durable = await waitDurable(table, {
      shard: SHARD,
      seq: 1,
      generation: 0,
      waitMs: 1_100,
      ...grid,
      commitDelay: estimate,
      ...clock,
    });
    expect(durable).toBe(false);
    // No re-reads after 2040: that tick had most likely resolved before the batch landed.
    expect(readsAt.slice(0, 2)).toEqual([2_040, 3_040]);
    expect(readsAt[2]).toBe(3_060); // a miss at a real commit moment is re-read (W3)
    expect(estimate.ms(500)).toBe(40); // only a first read at a commit moment teaches (W4)
  });

  describe("after a miss at the running tick's commit moment while its flush holds the shard", () => {
    /** Seq 1 buffered and its shard claimed; `waitOn` waits from 2010, the flush commits after the first read. */
    async function claimedThenCommitted(waitOn: number) {
      const f = await fixture(dynalite());
      await bufferedPut(f);
      const deps = f.flushDeps('ticker');
      const held = await claimShard(deps, SHARD);
      if (held.status !== 'claimed') throw new Error(`expected a claim, got ${held.status}`);
      const { table, readsAt, clock } = timedReads(f, 2_010);
      const send = table.client.send.bind(table.client);
      table.client.send = (async (command: never) => {
        const answer = await send(command);
        if (readsAt.length === 1) await flushHeld(deps, held);
        return answer;
      }) as typeof table.client.send;
      const durable = await waitDurable(table, {
        shard: SHARD,
        seq: waitOn,
        generation: 0,
        waitMs: 1_100,
        ...grid,
        commitDelay: new CommitDelayEstimate(40),
        ...clock,
      });
      return { durable, readsAt };
    }

    it('re-reads at half a delay and is acked by the commit of that flush, not a tick later', async () => {
      const { durable, readsAt } = await claimedThenCommitted(1);
      expect(durable).toBe(true);
      expect(readsAt).toEqual([2_040, 2_060]);
    });

    it('stops re-reading once that flush committed without the seq', async () => {
      const { durable, readsAt } = await claimedThenCommitted(2);
      expect(durable).toBe(false);
      expect(readsAt.slice(0, 3)).toEqual([2_040, 2_060, 3_040]);
    });
  });

  it('reads a repeat (no allocation of its own) at once', async () => {
    const f = await fixture(dynalite());
    await bufferedPut(f);
    await flushShard(f.flushDeps('ticker'), SHARD);
    const { table, readsAt, clock } = timedReads(f, 1_234);
    const durable = await waitDurable(table, {
      shard: SHARD,
      seq: 1,
      generation: undefined,
      waitMs: 5_000,
      ...grid,
      ...clock,
    });
    expect(durable).toBe(true);
    // The shard record, then (W5: a repeat cannot tell a rebuild by its generation) the batch head.
    expect(readsAt).toEqual([1_234, 1_234]);
  });

  it('re-reads a miss at doubling gaps from half a delay, then at the next commit moment, until the wait runs out', async () => {
    const f = await fixture(dynalite());
    await bufferedPut(f);
    const { table, readsAt, clock } = timedReads(f, 100);
    const durable = await waitDurable(table, {
      shard: SHARD,
      seq: 1,
      generation: 0,
      waitMs: 2_400,
      ...grid,
      commitDelay: new CommitDelayEstimate(40),
      ...clock,
    });
    expect(durable).toBe(false);
    expect(readsAt).toEqual([
      1_040, 1_060, 1_100, 1_180, 1_340, 1_660, 2_040, 2_060, 2_100, 2_180, 2_340, 2_500,
    ]);
  });

  it('reads at least every maxPollMs when commit moments are further apart', async () => {
    const f = await fixture(dynalite());
    await bufferedPut(f);
    const { table, readsAt, clock } = timedReads(f, 100);
    const estimate = new CommitDelayEstimate(40);
    await waitDurable(table, {
      shard: SHARD,
      seq: 1,
      generation: 0,
      waitMs: 3_000,
      ...grid,
      intervalMs: 60_000,
      commitDelay: estimate,
      ...clock,
    });
    expect(readsAt).toEqual([1_100, 2_100, 3_100]);
    // Reads between commit moments teach the estimate nothing.
    expect(estimate.ms(30_000)).toBe(40);
  });

  it('without a grid, reads every maxPollMs', async () => {
    const f = await fixture(dynalite());
    await bufferedPut(f);
    const { table, readsAt, clock } = timedReads(f, 0);
    await waitDurable(table, {
      shard: SHARD,
      seq: 1,
      generation: 0,
      waitMs: 1_000,
      intervalMs: undefined,
      commitDelayMs: 40,
      maxPollMs: 250,
      commitDelay: new CommitDelayEstimate(40),
      ...clock,
    });
    expect(readsAt).toEqual([250, 500, 750, 1_000]);
  });

  it('lengthens the commit delay after a first-read miss and shortens it after a hit', async () => {
    const f = await fixture(dynalite());
    await bufferedPut(f);
    const estimate = new CommitDelayEstimate(40);
    const wait = (generation: number | undefined, waitMs = 1_000) => {
      const { table, clock } = timedReads(f, 100);
      return waitDurable(table, {
        shard: SHARD,
        seq: 1,
        generation,
        waitMs,
        ...grid,
        commitDelay: estimate,
        ...clock,
      });
    };
    await wait(0, 100); // the deadline comes before the commit moment: no lesson
    expect(estimate.ms(500)).toBe(40);
    await wait(0);
    expect(estimate.ms(500)).toBe(45); // 40 × 1.1 + 1
    await flushShard(f.flushDeps('ticker'), SHARD);
    await wait(0);
    expect(estimate.ms(500)).toBe(44); // 45 × 0.975, rounded
    await wait(undefined); // a repeat teaches nothing
    expect(estimate.ms(500)).toBe(44);
  });
});

describe('CommitDelayEstimate', () => {
  describe('ms', () => {
    it('stays within 1 ms and the bound it is given', () => {
      const estimate = new CommitDelayEstimate(400);
      expect(estimate.ms(50)).toBe(50);
      for (let i = 0; i < 300; i++) estimate.hit();
      expect(estimate.ms(50)).toBe(1);
    });
  });

  describe('miss', () => {
    it('never grows past the bound', () => {
      const estimate = new CommitDelayEstimate(40);
      for (let i = 0; i < 50; i++) estimate.miss(500);
      expect(estimate.ms(10_000)).toBe(500);
    });
  });
});

describe('nextCommitMoment', () => {
  it.each([
    [0, 40],
    [39, 40],
    [40, 1_040],
    [1_500, 2_040],
  ])('after %i is %i (ticks every 1000 ms, commits 40 ms later)', (now, moment) => {
    expect(nextCommitMoment(now, 1_000, 40)).toBe(moment);
  });
});
