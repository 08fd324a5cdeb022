import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import {
  GetQueueAttributesCommand,
  type MessageAttributeValue,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../../infra/local/local-stack.js';
import { ShardwalHttpClient } from '../../lib/client/http-client.js';
import { StackRunningError } from '../../lib/local/errors.js';
import type { LocalSettings } from '../../lib/local/local-settings.js';
import { cli, jsonLines, useEnv } from '../cli/cli-io.js';
import { EventFile, loadEvent } from '../support/events.js';
import { testStackSettings } from '../support/local-stack.js';
import { eventually, postJson, send } from './http-client.js';

let dataDir: string;
let settings: LocalSettings;
let stack: LocalStack;
let base: string;

const rowsUrl = (shard: string, query = '') => `${base}/v1/shards/${shard}/rows${query}`;
const status = async (shard: string) => send('GET', `${base}/v1/shards/${shard}`);
const localSqs = () =>
  new SQSClient({
    endpoint: stack.info.sqsEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });

// Durable puts wait up to 3 intervals (at least 1 s) by default; a loaded CI machine can
// take longer for a first flush, and this file asserts durability, not the wait's length.
const durableWait = useEnv('SHARDWAL_DURABLE_WAIT_MS', '15000');

beforeAll(async () => {
  durableWait.set();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'shardwal-local-'));
  settings = testStackSettings(dataDir);
  stack = await startLocalStack(settings);
  base = stack.info.httpUrl;
});

afterAll(async () => {
  await stack?.stop();
  durableWait.restore();
  await rm(dataDir, { recursive: true, force: true });
});

describe('local stack', () => {
  describe('HTTP API', () => {
    it('acks a buffered put with 202 and the batch seq', async () => {
      const res = await postJson(rowsUrl('http-a'), { rows: [{ n: 1 }, { n: 2 }] });
      expect(res.status).toBe(202);
      expect(res.body).toEqual({ shard: 'http-a', seq: 1, rows: 2, durable: false });
    });

    it('acks a durable put with 200 once a tick has committed it', async () => {
      const res = await postJson(rowsUrl('http-b', '?durability=durable'), {
        key: 'id',
        rows: [{ id: 'k1', v: 1 }],
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ shard: 'http-b', seq: 1, rows: 1, durable: true });
      const seq = await send('GET', `${base}/v1/shards/http-b/seqs/1`);
      expect(seq.body).toMatchObject({ seq: 1, durable: true });
    });

    it('answers status with the shard cursors', async () => {
      await postJson(rowsUrl('http-c'), { rows: [{ a: 1 }] });
      await postJson(rowsUrl('http-c'), { rows: [{ a: 2 }] });
      const res = await eventually(async () => {
        const r = await status('http-c');
        return (r.body as { durableSeq: number }).durableSeq === 2 ? r : undefined;
      });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.body).toMatchObject({
        shard: 'http-c',
        nextSeq: 3,
        durableSeq: 2,
        walNextPos: expect.any(Number),
        bufferedBytes: 0,
        epoch: expect.any(Number),
        poison: null,
      });
    });

    it('passes the Idempotency-Key header through: a repeat returns the original ack', async () => {
      const headers = { 'Idempotency-Key': 'order-17' };
      const first = await postJson(rowsUrl('http-d'), { rows: [{ x: 1 }] }, headers);
      const again = await postJson(rowsUrl('http-d'), { rows: [{ x: 1 }] }, headers);
      expect(again.body).toEqual(first.body);
      const res = await status('http-d');
      // The repeat's own seq (2) is sealed void: nothing more is buffered.
      expect((res.body as { nextSeq: number }).nextSeq).toBe(3);
    });

    it('answers 404 not_found for an unknown route, a wrong method and an unknown shard', async () => {
      for (const [method, url] of [
        ['GET', `${base}/v2/anything`],
        ['DELETE', `${base}/v1/shards/http-a`],
        ['GET', `${base}/v1/shards/http-a/rows`],
      ] as const) {
        const res = await send(method, url);
        expect(res.status).toBe(404);
        expect(res.body).toMatchObject({ error: { kind: 'not_found' } });
      }
      const unknown = await status('never-written');
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({
        error: { kind: 'not_found', message: 'shard never-written not found' },
      });
    });

    it('answers 400 naming the field for a bad shard name, bad JSON and a bad row', async () => {
      const badShard = await postJson(rowsUrl('Bad%20Shard'), { rows: [{ a: 1 }] });
      expect(badShard.status).toBe(400);
      expect(badShard.body).toMatchObject({
        error: { kind: 'invalid_input', message: expect.stringMatching(/^shard: .*"Bad Shard"/) },
      });
      const badJson = await send('POST', rowsUrl('http-e'), { body: '{"rows": [' });
      expect(badJson.status).toBe(400);
      expect(badJson.body).toMatchObject({ error: { message: expect.stringMatching(/^body/) } });
      const badRow = await postJson(rowsUrl('http-e'), { rows: [{ a: 1 }, 7] });
      expect(badRow.status).toBe(400);
      expect(badRow.body).toMatchObject({
        error: { message: expect.stringContaining('rows[1]') },
      });
      const notUtf8 = await send('POST', rowsUrl('http-e'), { body: Buffer.from([0xff, 0xfe]) });
      expect(notUtf8.status).toBe(400);
    });

    it('answers a gzip body sent as application/json 415, as API Gateway passes it as text, and takes it as a vendor JSON type', async () => {
      const body = gzipSync(JSON.stringify({ rows: [{ n: 1 }] }));
      const asJson = await send('POST', rowsUrl('http-gzip'), {
        body,
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      });
      expect(asJson.status).toBe(415);
      expect(asJson.body).toMatchObject({ error: { kind: 'unsupported_media_type' } });
      const asBytes = await send('POST', rowsUrl('http-gzip'), {
        body,
        headers: { 'content-type': 'application/vnd.shardwal+json', 'content-encoding': 'gzip' },
      });
      expect(asBytes.status).toBe(202);
    });

    it('takes the client’s gzipped batches (8 KiB and more) at the first request, never via a 415 and a plain retry', async () => {
      const requests: { contentType?: string; status: number }[] = [];
      const client = new ShardwalHttpClient({
        endpoint: base,
        fetch: async (input, init) => {
          const response = await fetch(input, init);
          const headers = new Headers(init?.headers);
          requests.push({
            contentType: headers.get('content-type') ?? undefined,
            status: response.status,
          });
          return response;
        },
      });
      const rows = Array.from({ length: 100 }, (_, i) => ({ i, pad: 'x'.repeat(100) }));
      const ack = await client.put('http-client-gzip', rows);
      expect(ack.rows).toBe(100);
      expect(requests).toEqual([{ contentType: 'application/vnd.shardwal+json', status: 202 }]);
    });

    it('answers 413 for an oversized body, declared or chunked, without buffering it', async () => {
      const huge = Buffer.alloc(2 * 1024 * 1024, 'a');
      for (const chunked of [false, true]) {
        const res = await send('POST', rowsUrl('http-f'), { body: huge, chunked });
        expect(res.status).toBe(413);
        expect(res.body).toMatchObject({
          error: { kind: 'too_large', message: expect.stringMatching(/^body: expected at most/) },
        });
      }
      expect((await status('http-f')).status).toBe(404);
    });
  });

  describe('SQS ingest queue', () => {
    it('buffers the good messages of a batch and sends the invalid one to the dead-letter queue with its reason', async () => {
      // The sample batch: two valid messages for shard "clicks" (one with an
      // IdempotencyKey attribute, one keyed with a delete) and one invalid.
      const sample = loadEvent<SQSEvent>(EventFile.sqsBatch);
      const sqs = localSqs();
      try {
        await sqs.send(
          new SendMessageBatchCommand({
            QueueUrl: stack.info.queueUrl,
            Entries: sample.Records.map((record, i) => ({
              Id: String(i),
              MessageBody: record.body,
              MessageAttributes: Object.fromEntries(
                Object.entries(record.messageAttributes).map(([name, a]) => [
                  name,
                  { DataType: a.dataType, StringValue: a.stringValue } as MessageAttributeValue,
                ]),
              ),
            })),
          }),
        );
        const clicks = await eventually(async () => {
          const r = await status('clicks');
          const body = r.body as { nextSeq?: number; durableSeq?: number };
          return body.durableSeq === 2 ? body : undefined;
        });
        expect(clicks).toMatchObject({ nextSeq: 3, durableSeq: 2 });
        // The invalid message can never succeed: put-sqs dead-lettered it with the reason, once.
        const dead = await eventually(async () => {
          const out = await sqs.send(
            new ReceiveMessageCommand({
              QueueUrl: stack.info.deadLetterQueueUrl,
              MessageAttributeNames: ['All'],
            }),
          );
          return out.Messages?.[0];
        });
        expect(dead.Body).toBe(sample.Records[2]!.body);
        expect(dead.MessageAttributes?.ShardwalRefusalKind?.StringValue).toBe('invalid_input');
        expect(dead.MessageAttributes?.ShardwalRefusal?.StringValue).toContain('body.rows');
        const attributes = await sqs.send(
          new GetQueueAttributesCommand({
            QueueUrl: stack.info.queueUrl,
            AttributeNames: [
              'ApproximateNumberOfMessages',
              'ApproximateNumberOfMessagesNotVisible',
            ],
          }),
        );
        expect(attributes.Attributes).toMatchObject({
          ApproximateNumberOfMessages: '0',
          ApproximateNumberOfMessagesNotVisible: '0',
        });
      } finally {
        sqs.destroy();
      }
      // The dump (through the running stack) shows both messages' rows, each batch in order.
      const dump = await cli(['dump', 'clicks', '--data-dir', dataDir]);
      expect(dump.code).toBe(0);
      const rows = jsonLines(dump.stdout);
      expect(rows.map((r) => r.offset)).toEqual([0, 1, 2, 3]);
      expect(rows.map(({ seq: _seq, offset: _offset, ...rest }) => rest)).toEqual(
        expect.arrayContaining([
          { row: { user: 'u-17', page: '/pricing' } },
          { row: { user: 'u-42', page: '/docs' } },
          { key: 'u-17', row: { user: 'u-17', plan: 'pro' } },
          { key: 'u-99', delete: true },
        ]),
      );
    });
  });

  describe('stop and restart', () => {
    it('refuses a second stack on the same data folder', async () => {
      await expect(startLocalStack({ ...settings })).rejects.toBeInstanceOf(StackRunningError);
    });

    it('flushes every acked row on stop and finds them all after a restart', async () => {
      const acked: number[] = [];
      for (let i = 0; i < 25; i++) {
        const res = await postJson(rowsUrl('restart'), { rows: [{ i }] });
        expect(res.status).toBe(202);
        acked.push((res.body as { seq: number }).seq);
      }
      // Sent just before stop: the emulator keeps messages in memory, so stop must drain them.
      const sqs = localSqs();
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: stack.info.queueUrl,
          MessageBody: JSON.stringify({ shard: 'restart-sqs', rows: [{ via: 'sqs' }] }),
        }),
      );
      sqs.destroy();
      const report = await stack.stop();
      expect(report).toEqual({ sqsMessagesLeft: 0, pendingShards: [] });
      expect(existsSync(path.join(dataDir, 'stack.json'))).toBe(false);

      // Stopped: the CLI opens the data folder itself.
      const stopped = await cli(['status', 'restart', '--data-dir', dataDir, '--json']);
      expect(stopped.code).toBe(0);
      expect(JSON.parse(stopped.stdout)).toMatchObject({ nextSeq: 26, durableSeq: 25 });
      const dump = jsonLines((await cli(['dump', 'restart', '--data-dir', dataDir])).stdout);
      expect(dump.map((r) => r.seq)).toEqual(acked);
      expect(dump.map((r) => (r.row as { i: number }).i)).toEqual(acked.map((_, i) => i));
      const drained = await cli(['dump', 'restart-sqs', '--data-dir', dataDir]);
      expect(jsonLines(drained.stdout)).toEqual([{ seq: 1, offset: 0, row: { via: 'sqs' } }]);

      stack = await startLocalStack(settings);
      base = stack.info.httpUrl;
      expect((await status('restart')).body).toMatchObject({ nextSeq: 26, durableSeq: 25 });
      const more = await postJson(rowsUrl('restart', '?durability=durable'), { rows: [{ i: 25 }] });
      expect(more.body).toEqual({ shard: 'restart', seq: 26, rows: 1, durable: true });
      const after = jsonLines((await cli(['dump', 'restart', '--data-dir', dataDir])).stdout);
      expect(after.map((r) => r.seq)).toEqual([...acked, 26]);
      for (const shard of ['http-a', 'http-b', 'http-c', 'clicks']) {
        expect((await status(shard)).status).toBe(200);
      }
    });
  });
});
