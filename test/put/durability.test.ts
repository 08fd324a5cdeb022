import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { ErrorKind } from '../../lib/errors.js';
import { poisonShard } from '../../lib/fence/commit.js';
import { flushShard } from '../../lib/flush/flush-shard.js';
import { handlePut } from '../../lib/http/put-route.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { waitDurable } from '../../lib/put/durable-wait.js';
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
  it('backs off between reads up to maxPollMs, so a long wait costs few reads', async () => {
    const f = await fixture(dynalite());
    await bufferedPut(f);
    let reads = 0;
    const table = {
      ...f.table,
      client: {
        send: (command: unknown) => {
          reads++;
          return f.table.client.send(command as never);
        },
      } as unknown as typeof f.table.client,
    };
    let now = 0;
    const delays: number[] = [];
    const durable = await waitDurable(table, {
      shard: SHARD,
      seq: 1,
      generation: 0,
      waitMs: 1_000,
      pollMs: 10,
      maxPollMs: 80,
      now: () => now,
      sleep: async (ms) => {
        delays.push(ms);
        now += ms;
      },
    });
    expect(durable).toBe(false);
    expect(delays.slice(0, 5)).toEqual([10, 20, 40, 80, 80]);
    expect(Math.max(...delays)).toBe(80);
    // 0, 10, 30, 70, then every 80 ms to 1000: 16 reads, where a fixed 10 ms poll needs 101.
    expect(reads).toBe(16);
  });
});
