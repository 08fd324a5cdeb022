import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { poisonShard } from '../../lib/fence/commit.js';
import { flushShard } from '../../lib/flush/flush-shard.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { walKey } from '../../lib/paths.js';
import { handlePutMessages, IDEMPOTENCY_ATTRIBUTE } from '../../lib/sqs/put-messages.js';
import { decodeWal } from '../../lib/wal/decode.js';
import { EventFile, redelivered, sqsEvent } from '../support/events.js';
import { fixture, useDynalite } from '../support/harness.js';
import { lambdaContext } from '../support/lambda-context.js';

const dynalite = useDynalite();
const SHARD = 'clicks';

const failedIds = (response: { batchItemFailures: { itemIdentifier: string }[] }) =>
  response.batchItemFailures.map((failure) => failure.itemIdentifier).sort();

describe('handlePutMessages', () => {
  it('reports the invalid message as an item failure and buffers the valid ones', async () => {
    const f = await fixture(dynalite());
    const event = sqsEvent(EventFile.sqsBatch);
    const bad = event.Records[2]!;
    const response = await handlePutMessages(event, lambdaContext(), f.put);
    expect(failedIds(response)).toEqual([bad.messageId]);

    expect(await readShardRecord(f.table, SHARD)).toMatchObject({ nextSeq: 3, pending: true });
    await flushShard(f.flushDeps('ticker'), SHARD);
    const wal = decodeWal(walKey(SHARD, 0), (await f.memory.get(walKey(SHARD, 0)))!);
    const bySeq = new Map<number, unknown[]>();
    for (const row of wal.rows) bySeq.set(row.seq, [...(bySeq.get(row.seq) ?? []), row]);
    // The batch processor may run messages concurrently: each is one batch, whole.
    const batches = [...bySeq.values()].map((rows) => JSON.stringify(rows));
    expect(batches).toHaveLength(2);
    expect(batches.some((b) => b.includes('/pricing') && b.includes('/docs'))).toBe(true);
    expect(batches.some((b) => b.includes('"key":"\\"u-99\\"","delete":true'))).toBe(true);
  });

  it('buffers nothing when the same messages are delivered again', async () => {
    const f = await fixture(dynalite());
    await handlePutMessages(sqsEvent(EventFile.sqsBatch), lambdaContext(), f.put);
    await flushShard(f.flushDeps('ticker'), SHARD);
    const before = await readShardRecord(f.table, SHARD);
    const again = await handlePutMessages(sqsEvent(EventFile.sqsBatch), lambdaContext(), f.put);
    expect(again.batchItemFailures).toHaveLength(1);
    // Each repeat sealed the seq it allocated void: no row more reaches the WAL.
    await flushShard(f.flushDeps('ticker'), SHARD);
    const after = await readShardRecord(f.table, SHARD);
    expect(after?.durableSeq).toBe(after!.nextSeq - 1);
    expect(after?.nextRowOffset).toBe(before?.nextRowOffset);
    expect(after?.bufferedBytes).toBe(0);
  });

  it('dedups by the IdempotencyKey attribute across different message ids', async () => {
    const f = await fixture(dynalite());
    const [withKey] = sqsEvent(EventFile.sqsBatch).Records;
    expect(withKey?.messageAttributes[IDEMPOTENCY_ATTRIBUTE]).toBeDefined();
    await handlePutMessages({ Records: [withKey!] }, lambdaContext(), f.put);
    const copy = redelivered(withKey!, '0b6c1d2e-producer-retry');
    const response = await handlePutMessages({ Records: [copy] }, lambdaContext(), f.put);
    expect(response.batchItemFailures).toEqual([]);
    // The repeat's own seq is sealed void: nothing more is buffered.
    expect(await readShardRecord(f.table, SHARD)).toMatchObject({ nextSeq: 3 });

    // Without the attribute, a new message id is a new put.
    const plain = redelivered(withKey!, '5f0e-new-message');
    plain.messageAttributes = {};
    await handlePutMessages({ Records: [plain] }, lambdaContext(), f.put);
    expect(await readShardRecord(f.table, SHARD)).toMatchObject({ nextSeq: 4 });
  });

  it('fails only the backpressured message, and its redelivery succeeds after a flush', async () => {
    const f = await fixture(dynalite(), { maxBufferedBytes: 120, flushTriggerBytes: 120 });
    const [first] = sqsEvent(EventFile.sqsBatch).Records;
    const fill = redelivered(first!, 'fill-hot', first!.body.replace(SHARD, 'hot'));
    fill.messageAttributes = {};
    await handlePutMessages({ Records: [fill] }, lambdaContext(), f.put);

    const hot = redelivered(fill, 'to-hot');
    const cold = redelivered(fill, 'to-cold', fill.body.replace('hot', 'cold'));
    const event: SQSEvent = { Records: [hot, cold] };
    const response = await handlePutMessages(event, lambdaContext(), f.put);
    expect(failedIds(response)).toEqual(['to-hot']);
    expect(await readShardRecord(f.table, 'cold')).toMatchObject({ nextSeq: 2 });

    await flushShard(f.flushDeps('ticker'), 'hot');
    const retry = await handlePutMessages({ Records: [hot] }, lambdaContext(), f.put);
    expect(retry.batchItemFailures).toEqual([]);
    expect(await readShardRecord(f.table, 'hot')).toMatchObject({ nextSeq: 3 });
  });

  it('fails only the message for a poisoned shard', async () => {
    const f = await fixture(dynalite());
    const [first] = sqsEvent(EventFile.sqsBatch).Records;
    await poisonShard(f.table, 'sick', 'diverged', 1);
    const sick = redelivered(first!, 'to-sick', first!.body.replace(SHARD, 'sick'));
    sick.messageAttributes = {};
    const response = await handlePutMessages({ Records: [sick, first!] }, lambdaContext(), f.put);
    expect(failedIds(response)).toEqual(['to-sick']);
  });

  it.each([
    ['not JSON', 'shard=clicks'],
    ['a JSON array', '[{"shard":"clicks","rows":[{}]}]'],
    ['no shard', '{"rows":[{"a":1}]}'],
    ['a bad shard name', '{"shard":"../x","rows":[{"a":1}]}'],
    ['an unknown field', '{"shard":"clicks","rows":[{"a":1}],"durability":"durable"}'],
    ['an empty body', ''],
  ])('reports a message with %s, without failing the whole batch', async (_label, body) => {
    const f = await fixture(dynalite());
    const [first] = sqsEvent(EventFile.sqsBatch).Records;
    const bad = redelivered(first!, 'bad', body);
    bad.messageAttributes = {};
    const response = await handlePutMessages({ Records: [bad] }, lambdaContext(), f.put);
    expect(failedIds(response)).toEqual(['bad']);
  });
});
