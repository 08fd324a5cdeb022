/**
 * A rebuild killed after its fence (kill -9 of `shardwal recover`, a recovery
 * Lambda timing out) must not leave its shard closed until an operator
 * notices: once its lease lapses, the next tick, verify or recover takes the
 * rebuild over and finishes it (`lib/recovery/takeover.ts`), and puts succeed
 * again with no row lost or written twice. Until then puts get 503 with
 * `Retry-After`, and a live rebuild is never taken over.
 *
 * The shard: a record rolled back behind S3 (as in divergence.test.ts), so
 * the rebuild has batches to quarantine (seqs 3-5, put again after the
 * rollback with other rows) and one to keep pending (seq 6).
 */
import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { validateSettings } from '../../lib/config.js';
import { PoisonedError } from '../../lib/errors.js';
import { exportShard } from '../../lib/export/export-shard.js';
import type { LeaseTimers } from '../../lib/fence/lease-keeper.js';
import { flushShard } from '../../lib/flush/flush-shard.js';
import { errorResponse } from '../../lib/http/error-response.js';
import { rebuildRetryAfterSeconds, rebuildTakeoverMs } from '../../lib/liveness.js';
import type { BatchRow } from '../../lib/memtable/batch-codec.js';
import { listPendingShards } from '../../lib/memtable/pending-index.js';
import { listRejectedBatches } from '../../lib/memtable/quarantine.js';
import { type RebuildFence, readShardRecord } from '../../lib/memtable/shard-record.js';
import { META_SK, shardPk } from '../../lib/memtable/table.js';
import { walKey, walPrefix } from '../../lib/paths.js';
import { putRows } from '../../lib/put/put-rows.js';
import { parsePutValue } from '../../lib/put/schema.js';
import type { RecoveryDeps } from '../../lib/recovery/deps.js';
import { RebuildFaultPoint } from '../../lib/recovery/fault-points.js';
import { HealKind } from '../../lib/recovery/findings.js';
import { rebuildShard } from '../../lib/recovery/rebuild.js';
import { replayShard } from '../../lib/recovery/replay.js';
import { takeOverRebuild } from '../../lib/recovery/takeover.js';
import { verifyShard } from '../../lib/recovery/verify.js';
import { flushMessage } from '../../lib/sqs/flush-messages.js';
import type { ObjectStore } from '../../lib/store/object-store.js';
import { runTick } from '../../lib/ticker/tick.js';
import { decodeWal } from '../../lib/wal/decode.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';
import { expireBatchItems } from '../support/shard-item.js';
import { caught } from '../wal/helpers.js';
import { exportDepsOf, recoveryDepsOf, snapshotOf, TestShard } from './support.js';

const dynalite = useDynalite();
const SHARD = 's1';
/** Clock skew of these tests: the takeover waits it out past the lease (L6). */
const SKEW_MS = 1000;

/** Thrown at a fault point: the rebuild's process dies there. */
class Killed extends Error {
  constructor(point: string) {
    super(`killed at ${point}`);
    this.name = 'Killed';
  }
}

function depsOf(f: Fixture, owner: string, extra: Partial<RecoveryDeps> = {}): RecoveryDeps {
  return { ...recoveryDepsOf(f, owner), clockSkewMs: f.config.clockSkewMs, ...extra };
}

/** Dies the first time it reaches `point`; counts the points reached. */
function killAt(point: RebuildFaultPoint) {
  return async (at: RebuildFaultPoint) => {
    if (at === point) throw new Killed(at);
  };
}

/** Timers the test fires by hand: the lease keeper renews only when told. */
function manualTimers() {
  const due: Array<() => void> = [];
  const timers: LeaseTimers = {
    setTimeout: (fn) => {
      due.push(fn);
      return due.length - 1;
    },
    clearTimeout: () => {},
  };
  return {
    timers,
    /** Runs the renewals scheduled so far. */
    fire: async () => {
      for (const fn of due.splice(0)) fn();
    },
  };
}

/** Waits (a few seconds at most) until the fence's lease is renewed to `expiresAtMs`. */
async function renewedTo(f: Fixture, expiresAtMs: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await readShardRecord(f.table, SHARD))?.leaseExpiresAtMs === expiresAtMs) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the lease was not renewed to ${expiresAtMs}`);
}

/** Every row in the WAL, grouped by seq (a void seq holds no row). */
async function walRowsBySeq(store: ObjectStore): Promise<Map<number, BatchRow[]>> {
  const bySeq = new Map<number, BatchRow[]>();
  for await (const key of store.list(walPrefix(SHARD))) {
    const { header, rows } = decodeWal(key, (await store.get(key))!);
    for (const seq of header.voidSeqs) {
      if (bySeq.has(seq)) throw new Error(`seq ${seq} written twice`);
      bySeq.set(seq, []);
    }
    const seen = new Set<number>();
    for (const row of rows) {
      if (!seen.has(row.seq) && bySeq.has(row.seq)) throw new Error(`seq ${row.seq} written twice`);
      seen.add(row.seq);
      const list = bySeq.get(row.seq) ?? [];
      const { seq: _s, offset: _o, ingestedAtMs: _i, ...rest } = row;
      list.push(rest);
      bySeq.set(row.seq, list);
    }
  }
  return new Map([...bySeq].sort(([a], [b]) => a - b));
}

/** A shard whose record was rolled back behind S3 and poisoned by the next flush. */
async function divergedShard(f: Fixture) {
  const s = new TestShard(f, SHARD);
  const expected = new Map<number, BatchRow[]>();
  const put = async (body: { key?: string; rows: Array<Record<string, unknown>> }) => {
    const seq = await s.put(body);
    expected.set(seq, parsePutValue(body, f.config.maxRowsPerPut).rows);
    return seq;
  };
  await put({ key: 'id', rows: [{ id: 'a', v: 1 }] });
  await put({ rows: [{ n: 1 }] });
  await s.flush(); // position 0: seqs 1-2
  await exportShard(exportDepsOf(f), SHARD);
  const backup = await f.table.client.send(
    new GetItemCommand({
      TableName: f.table.tableName,
      Key: { pk: { S: shardPk(SHARD) }, sk: { S: META_SK } },
      ConsistentRead: true,
    }),
  );
  await put({ key: 'id', rows: [{ id: 'a', v: 2 }] });
  await s.flush(); // position 1: seq 3
  await put({ key: 'id', rows: [{ id: 'c', v: 1 }] });
  await put({ rows: [{ n: 2 }] });
  await s.flush(); // position 2: seqs 4-5
  await f.table.client.send(
    new PutItemCommand({ TableName: f.table.tableName, Item: backup.Item! }),
  );
  await expireBatchItems(f.table, SHARD, 5);
  // Puts after the rollback take seqs 3-5 again (S3 holds other rows there): rejected by the rebuild.
  const rejected: Array<[number, number]> = [];
  for (const rows of [[{ id: 'a', v: 'stale' }], [{ id: 'z', v: 1 }], [{ id: 'c', v: 'stale' }]]) {
    const { ack } = await putRows(f.put, {
      shard: SHARD,
      body: parsePutValue({ key: 'id', rows }, 10),
      durability: 'buffered',
    });
    rejected.push([ack.seq, rows.length]);
  }
  expect(rejected.map(([seq]) => seq)).toEqual([3, 4, 5]);
  expect(await put({ key: 'id', rows: [{ id: 'd', v: 1 }] })).toBe(6);
  expect(await flushShard(f.flushDeps('flusher'), SHARD)).toMatchObject({ status: 'poisoned' });
  return { s, expected, put, rejected };
}

/** A put to the shard; the PoisonedError it meets, if any. */
async function tryPut(f: Fixture): Promise<unknown> {
  return caught(() =>
    putRows(f.put, {
      shard: SHARD,
      body: parsePutValue({ rows: [{ probe: true }] }, 10),
      durability: 'buffered',
    }),
  );
}

/** A tick as the service wires it: flush every pending shard, take over a lapsed rebuild fence. */
function tick(f: Fixture, owner = 'ticker') {
  const deps = depsOf(f, `takeover-${owner}`);
  return runTick({
    flush: f.flushDeps(owner),
    takeOver: (shard, fence) => takeOverRebuild(deps, shard, fence),
  });
}

/** The takers: each runs once the lease has lapsed, the way production runs it. */
const TAKERS = {
  tick: async (f: Fixture) => {
    await tick(f);
  },
  verify: async (f: Fixture) => {
    const report = await verifyShard(depsOf(f, 'scheduled-verify'), SHARD);
    expect(report.heals.map((h) => h.kind)).toContain(HealKind.rebuildTakenOver);
    expect(report.findings).toEqual([]);
  },
  recover: async (f: Fixture) => {
    const report = await rebuildShard(depsOf(f, 'operator'), SHARD);
    expect(report.status).toBe('rebuilt');
  },
} as const;

const POINTS = Object.values(RebuildFaultPoint);

describe('takeOverRebuild', () => {
  describe.each(POINTS)('when the rebuild is killed at %s', (point) => {
    it.each(Object.keys(TAKERS) as Array<keyof typeof TAKERS>)(
      'the next %s after the lease lapses finishes it, and puts succeed with no row lost or doubled',
      async (taker) => {
        const f = await fixture(dynalite(), { clockSkewMs: SKEW_MS });
        const { s, expected, put, rejected } = await divergedShard(f);

        const killedAt = f.clock.now();
        const died = await caught(() =>
          rebuildShard(depsOf(f, 'killed', { faults: killAt(point) }), SHARD),
        );
        expect(died).toBeInstanceOf(Killed);
        const fenced = await readShardRecord(f.table, SHARD);
        expect(fenced?.rebuildEpoch).toBe(fenced?.epoch);
        expect(fenced?.poison).toContain('rebuild by killed in progress');

        // Meanwhile puts get 503 with Retry-After: the lease left + skew + one interval.
        const refused = await tryPut(f);
        expect(refused).toBeInstanceOf(PoisonedError);
        const retryAfter = (refused as PoisonedError).retryAfterSeconds;
        expect(retryAfter).toBe(
          rebuildRetryAfterSeconds(fenced?.leaseExpiresAtMs, f.clock.now(), f.config),
        );
        expect(retryAfter).toBe(Math.ceil(rebuildTakeoverMs(f.config) / 1000));
        const answer = errorResponse(refused);
        expect(answer.statusCode).toBe(503);
        expect(answer.headers?.['retry-after']).toBe(String(retryAfter));

        // The lease (and the skew) not yet past: nobody takes over.
        f.clock.advance(f.config.leaseMs + SKEW_MS);
        await TAKERS.tick(f);
        expect(await readShardRecord(f.table, SHARD)).toMatchObject({
          epoch: fenced?.epoch,
          poison: fenced?.poison,
        });

        // Past it: the taker finishes the rebuild.
        f.clock.advance(1);
        expect(f.clock.now() - killedAt).toBeLessThanOrEqual(rebuildTakeoverMs(f.config));
        await TAKERS[taker](f);
        const after = await readShardRecord(f.table, SHARD);
        expect(after).toMatchObject({
          poison: undefined,
          rebuildEpoch: undefined,
          leaseOwner: undefined,
          durableSeq: 5,
          walNextPos: 3,
          nextSeq: 7,
          generation: (fenced?.generation ?? 0) + 1,
          aofWatermark: 1,
        });

        // Every rejected batch is in the quarantine, once, with its rows.
        expect(
          (await listRejectedBatches(f.table, SHARD)).map((r) => [r.seq, r.rows.length]),
        ).toEqual(rejected);

        // Puts succeed again and flush after the pending seq 6.
        expect(await put({ rows: [{ n: 3 }] })).toBe(7);
        await s.flush();
        expect(await walRowsBySeq(f.store)).toStrictEqual(
          new Map([...expected].sort(([a], [b]) => a - b)),
        );
        const replay = await replayShard(f.store, SHARD, { keepRows: true, keepKeyless: true });
        expect(snapshotOf(replay.state)).toStrictEqual(s.model.snapshot());
        expect((await verifyShard(depsOf(f, 'check'), SHARD)).ok).toBe(true);
      },
    );
  });

  describe('when the killed rebuild fenced a shard with nothing pending', () => {
    it('a tick finds it through the pending index the fence put it in, and takes it over', async () => {
      const f = await fixture(dynalite(), { clockSkewMs: SKEW_MS });
      const s = new TestShard(f, SHARD);
      await s.keyless([{ n: 1 }]);
      await s.flush();
      expect(await listPendingShards(f.table)).toEqual([]);
      const died = await caught(() =>
        rebuildShard(depsOf(f, 'killed', { faults: killAt(RebuildFaultPoint.afterFence) }), SHARD),
      );
      expect(died).toBeInstanceOf(Killed);
      expect(await listPendingShards(f.table)).toEqual([SHARD]);
      f.clock.advance(f.config.leaseMs + SKEW_MS + 1);
      await tick(f);
      expect(await readShardRecord(f.table, SHARD)).toMatchObject({
        poison: undefined,
        durableSeq: 1,
        nextSeq: 2,
      });
      // The marker the fence added went with the reset: nothing is pending.
      expect(await listPendingShards(f.table)).toEqual([]);
      expect(await s.keyless([{ n: 2 }])).toBe(2);
    });
  });

  describe('when the tick fanned the fenced shard out to a flush worker', () => {
    it('the worker takes it over once the lease lapses', async () => {
      const f = await fixture(dynalite(), { clockSkewMs: SKEW_MS });
      await divergedShard(f);
      const died = await caught(() =>
        rebuildShard(depsOf(f, 'killed', { faults: killAt(RebuildFaultPoint.beforeReset) }), SHARD),
      );
      expect(died).toBeInstanceOf(Killed);
      const deps = depsOf(f, 'takeover-worker');
      const message = { body: JSON.stringify({ shard: SHARD }) } as SQSRecord;
      const takeOver = (shard: string, fence: RebuildFence) => takeOverRebuild(deps, shard, fence);
      await flushMessage(f.flushDeps('worker'), message, takeOver);
      expect((await readShardRecord(f.table, SHARD))?.poison).toContain('rebuild by killed');
      f.clock.advance(f.config.leaseMs + SKEW_MS + 1);
      await flushMessage(f.flushDeps('worker'), message, takeOver);
      expect(await readShardRecord(f.table, SHARD)).toMatchObject({
        poison: undefined,
        durableSeq: 5,
        nextSeq: 7,
      });
    });
  });

  describe('when S3 no longer replays to the end after the abandoned fence', () => {
    it('keeps the shard closed with a poison naming the stop, and no taker runs again', async () => {
      const f = await fixture(dynalite(), { clockSkewMs: SKEW_MS });
      await divergedShard(f);
      const died = await caught(() =>
        rebuildShard(
          depsOf(f, 'killed', { faults: killAt(RebuildFaultPoint.afterCatchUp) }),
          SHARD,
        ),
      );
      expect(died).toBeInstanceOf(Killed);
      await f.memory.delete(walKey(SHARD, 1)); // the chain after the export is broken
      f.clock.advance(f.config.leaseMs + SKEW_MS + 1);
      await tick(f);
      const stopped = await readShardRecord(f.table, SHARD);
      expect(stopped?.poison).toContain(`stopped at ${walKey(SHARD, 1)} (gap`);
      expect(stopped).toMatchObject({ rebuildEpoch: undefined, leaseOwner: undefined });
      // Not a fence any more: later ticks leave it to an operator.
      f.clock.advance(f.config.leaseMs * 10);
      await tick(f);
      expect(await readShardRecord(f.table, SHARD)).toMatchObject({
        epoch: stopped?.epoch,
        poison: stopped?.poison,
      });
      expect(((await tryPut(f)) as PoisonedError).retryAfterSeconds).toBeUndefined();
    });
  });

  describe('when the rebuild is alive', () => {
    it('is not taken over while it renews its lease, however long it runs', async () => {
      const f = await fixture(dynalite(), { clockSkewMs: SKEW_MS });
      await divergedShard(f);
      const { timers, fire } = manualTimers();
      let resume: () => void = () => {};
      let reached: () => void = () => {};
      const atReset = new Promise<void>((resolve) => {
        reached = resolve;
      });
      const running = rebuildShard(
        depsOf(f, 'slow', {
          timers,
          faults: async (point) => {
            if (point !== RebuildFaultPoint.beforeReset) return;
            reached();
            await new Promise<void>((resolve) => {
              resume = resolve;
            });
          },
        }),
        SHARD,
      );
      await atReset;
      const fenced = await readShardRecord(f.table, SHARD);
      // Three leases pass; the rebuild renews every third of one.
      for (let i = 0; i < 9; i++) {
        f.clock.advance(Math.floor(f.config.leaseMs / 3));
        await fire();
        await renewedTo(f, f.clock.now() + f.config.leaseMs);
        await tick(f, `ticker-${i}`);
        const report = await verifyShard(depsOf(f, `verify-${i}`), SHARD);
        expect(report.heals.map((h) => h.kind)).not.toContain(HealKind.rebuildTakenOver);
      }
      expect(await readShardRecord(f.table, SHARD)).toMatchObject({
        epoch: fenced?.epoch,
        leaseOwner: 'slow',
      });
      resume();
      expect((await running).status).toBe('rebuilt');
    });

    it('one that stalled past its lease is taken over, and changes nothing when it wakes', async () => {
      const f = await fixture(dynalite(), { clockSkewMs: SKEW_MS });
      const { s, expected, put, rejected } = await divergedShard(f);
      const { timers } = manualTimers(); // never fired: the process is stalled
      let stalledOnce = false;
      let resume: () => void = () => {};
      let reached: () => void = () => {};
      const atReset = new Promise<void>((resolve) => {
        reached = resolve;
      });
      const stalled = rebuildShard(
        depsOf(f, 'stalled', {
          timers,
          faults: async (point) => {
            // Stalls after its first quarantine (of three).
            if (point !== RebuildFaultPoint.afterQuarantine || stalledOnce) return;
            stalledOnce = true;
            reached();
            await new Promise<void>((resolve) => {
              resume = resolve;
            });
          },
        }),
        SHARD,
      );
      await atReset;
      f.clock.advance(f.config.leaseMs + SKEW_MS + 1);
      await tick(f);
      expect(await readShardRecord(f.table, SHARD)).toMatchObject({ poison: undefined });
      expect(await put({ rows: [{ n: 3 }] })).toBe(7);
      resume();
      const report = await stalled;
      expect(report.status).toBe('fenced-out');
      await s.flush();
      expect(await walRowsBySeq(f.store)).toStrictEqual(
        new Map([...expected].sort(([a], [b]) => a - b)),
      );
      expect(
        (await listRejectedBatches(f.table, SHARD)).map((r) => [r.seq, r.rows.length]),
      ).toEqual(rejected);
      expect(await readShardRecord(f.table, SHARD)).toMatchObject({
        durableSeq: 7,
        nextSeq: 8,
        poison: undefined,
      });
    });
  });
});

describe('rebuildTakeoverMs', () => {
  it('is lease + clock skew + one flush interval: 7 s with the default settings', () => {
    expect(rebuildTakeoverMs(validateSettings({}))).toBe(7_000);
  });
});
