import { afterEach, describe, expect, it, vi } from 'vitest';
import { UnavailableError } from '../../lib/errors.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { Metric } from '../../lib/observability/metric-names.js';
import { metrics } from '../../lib/observability/telemetry.js';
import { putRows } from '../../lib/put/put-rows.js';
import { parsePutValue } from '../../lib/put/schema.js';
import { handleFlushMessages } from '../../lib/sqs/flush-messages.js';
import { InstrumentedObjectStore } from '../../lib/store/instrumented-store.js';
import type { PutIfAbsentResult } from '../../lib/store/object-store.js';
import { EventFile, redelivered, sqsEvent } from '../support/events.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';
import { lambdaContext } from '../support/lambda-context.js';

const dynalite = useDynalite();

async function putTo(f: Fixture, shard: string) {
  await putRows(f.put, {
    shard,
    body: parsePutValue({ rows: [{ shard }] }, 10_000),
    durability: 'buffered',
  });
}

describe('handleFlushMessages', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('flushes each named shard and fails only the bad message', async () => {
    const f = await fixture(dynalite());
    await putTo(f, 'orders');
    await putTo(f, 'clicks');
    const event = sqsEvent(EventFile.flushRequests);
    const bad = event.Records[2]!;
    const response = await handleFlushMessages(event, lambdaContext(), f.flushDeps('worker'));
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: bad.messageId }]);
    for (const shard of ['orders', 'clicks']) {
      expect(await readShardRecord(f.table, shard)).toMatchObject({
        durableSeq: 1,
        walNextPos: 1,
        pending: false,
      });
    }
    expect(f.store.counts().putIfAbsent).toBe(2);
  });

  it('treats an idle or never-written shard as done, with no object store call', async () => {
    const f = await fixture(dynalite());
    const [orders] = sqsEvent(EventFile.flushRequests).Records;
    const response = await handleFlushMessages(
      { Records: [orders!] },
      lambdaContext(),
      f.flushDeps('worker'),
    );
    expect(response.batchItemFailures).toEqual([]);
    expect(f.store.counts().putIfAbsent).toBe(0);
  });

  it('fails just the message whose flush hit a transient error, so SQS retries it', async () => {
    const f = await fixture(dynalite());
    await putTo(f, 'orders');
    await putTo(f, 'clicks');
    class FlakyStore extends InstrumentedObjectStore {
      override async putIfAbsent(key: string, body: Uint8Array): Promise<PutIfAbsentResult> {
        if (key.includes('/clicks/')) throw new UnavailableError('S3 503 SlowDown');
        return super.putIfAbsent(key, body);
      }
    }
    const [orders, clicks] = sqsEvent(EventFile.flushRequests).Records;
    const response = await handleFlushMessages(
      { Records: [orders!, clicks!] },
      lambdaContext(),
      f.flushDeps('worker', { store: new FlakyStore(f.memory) }),
    );
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: clicks!.messageId }]);
    expect(await readShardRecord(f.table, 'orders')).toMatchObject({ durableSeq: 1 });
    expect(await readShardRecord(f.table, 'clicks')).toMatchObject({ durableSeq: 0 });
  });

  it('flushes every shard a fan-out list names, one WAL object each', async () => {
    const f = await fixture(dynalite());
    const shards = ['l0', 'l1', 'l2', 'l3'];
    for (const shard of shards) await putTo(f, shard);
    const [first] = sqsEvent(EventFile.flushRequests).Records;
    const list = redelivered(first!, 'list', JSON.stringify({ shards, reason: 'fan-out' }));
    const response = await handleFlushMessages(
      { Records: [list] },
      lambdaContext(),
      f.flushDeps('worker'),
    );
    expect(response.batchItemFailures).toEqual([]);
    for (const shard of shards) {
      expect(await readShardRecord(f.table, shard)).toMatchObject({
        durableSeq: 1,
        walNextPos: 1,
        pending: false,
      });
    }
    expect(f.store.counts().putIfAbsent).toBe(4);
  });

  it('fails a list message when one of its flushes hit a transient error; its retry flushes that shard and writes nothing twice', async () => {
    const f = await fixture(dynalite());
    const shards = ['orders', 'clicks', 'views'];
    for (const shard of shards) await putTo(f, shard);
    let failClicks = true;
    class FlakyStore extends InstrumentedObjectStore {
      override async putIfAbsent(key: string, body: Uint8Array): Promise<PutIfAbsentResult> {
        if (failClicks && key.includes('/clicks/')) throw new UnavailableError('S3 503 SlowDown');
        return super.putIfAbsent(key, body);
      }
    }
    const store = new FlakyStore(f.memory);
    const [first] = sqsEvent(EventFile.flushRequests).Records;
    const list = redelivered(first!, 'list', JSON.stringify({ shards, reason: 'fan-out' }));
    const deps = f.flushDeps('worker', { store });
    const response = await handleFlushMessages({ Records: [list] }, lambdaContext(), deps);
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'list' }]);
    expect(await readShardRecord(f.table, 'orders')).toMatchObject({ durableSeq: 1 });
    expect(await readShardRecord(f.table, 'views')).toMatchObject({ durableSeq: 1 });
    expect(await readShardRecord(f.table, 'clicks')).toMatchObject({
      durableSeq: 0,
      pending: true,
    });
    // SQS delivers the message again: the shard that failed is flushed, the others are idle.
    failClicks = false;
    const retried = await handleFlushMessages({ Records: [list] }, lambdaContext(), deps);
    expect(retried.batchItemFailures).toEqual([]);
    expect(await readShardRecord(f.table, 'clicks')).toMatchObject({
      durableSeq: 1,
      pending: false,
    });
    expect(
      f.memory
        .keys()
        .filter((key) => key.includes('/wal/'))
        .sort(),
    ).toEqual(shards.map((shard) => `shards/${shard}/wal/${'0'.repeat(20)}`).sort());
  });

  it.each([
    ['not JSON', 'flush clicks'],
    ['null', 'null'],
    ['no shard', '{"reason":"fan-out"}'],
    ['an empty list', '{"shards":[],"reason":"fan-out"}'],
    ['a list with a bad name', '{"shards":["ok","Not OK"],"reason":"fan-out"}'],
  ])('reports a message that is %s', async (_label, body) => {
    const f = await fixture(dynalite());
    const [first] = sqsEvent(EventFile.flushRequests).Records;
    const response = await handleFlushMessages(
      { Records: [redelivered(first!, 'bad', body)] },
      lambdaContext(),
      f.flushDeps('worker'),
    );
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'bad' }]);
  });

  it("emits each shard's oldest pending age, read from the table when its flush failed", async () => {
    const f = await fixture(dynalite());
    await putTo(f, 'clicks');
    f.clock.advance(2_000);
    await putTo(f, 'orders');
    f.clock.advance(1_000);
    class FlakyStore extends InstrumentedObjectStore {
      override async putIfAbsent(key: string, body: Uint8Array): Promise<PutIfAbsentResult> {
        if (key.includes('/clicks/')) throw new UnavailableError('S3 503 SlowDown');
        return super.putIfAbsent(key, body);
      }
    }
    const spy = vi.spyOn(metrics, 'addMetric');
    const [orders, clicks] = sqsEvent(EventFile.flushRequests).Records;
    await handleFlushMessages(
      { Records: [orders!, clicks!] },
      lambdaContext(),
      f.flushDeps('worker', { store: new FlakyStore(f.memory) }),
    );
    const ages = spy.mock.calls
      .filter(([name]) => name === Metric.oldestPendingAgeMs)
      .map(([, , value]) => value);
    expect(ages.sort()).toEqual([1_000, 3_000]);
  });
});
