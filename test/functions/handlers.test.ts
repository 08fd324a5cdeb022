/**
 * The Lambda entry points as deployed: each module builds its service from the
 * environment at import (cold start), here pointed at dynalite and a
 * filesystem object store. `vi.resetModules()` gives every test a fresh cold
 * start with its own environment.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CreateQueueCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  Context,
  SQSBatchResponse,
  SQSEvent,
} from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DURABLE_PUTS_ENV, SETTINGS } from '../../lib/config.js';
import { ConfigError, ErrorKind } from '../../lib/errors.js';
import type { Table } from '../../lib/memtable/table.js';
import { bodyOf, EventFile, httpEvent, loadEvent, sqsEvent } from '../support/events.js';
import { useFauxqs } from '../support/fauxqs.js';
import { freshTable, useDynalite } from '../support/harness.js';
import { lambdaContext } from '../support/lambda-context.js';

const dynalite = useDynalite();
const sqs = useFauxqs();

type Handler<E, R> = (event: E, context: Context) => Promise<R>;
type HttpHandler = Handler<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>;
type SqsHandler = Handler<SQSEvent, SQSBatchResponse>;

let table: Table;
let storeDir: string;

/** Cold-starts a function module with the test environment plus `env`. */
async function coldStart<H>(name: string, env: Record<string, string> = {}): Promise<H> {
  vi.resetModules();
  const all: Record<string, string> = {
    SHARDWAL_TABLE: table.tableName,
    SHARDWAL_BUCKET: 'shardwal-test-bucket',
    SHARDWAL_DYNAMODB_ENDPOINT: dynalite().endpoint,
    SHARDWAL_STORE_DIR: storeDir,
    AWS_REGION: 'us-east-1',
    [SETTINGS.flushIntervalMs.env]: '60000',
    ...env,
  };
  for (const [key, value] of Object.entries(all)) vi.stubEnv(key, value);
  const module = (await import(`../../functions/${name}.ts`)) as { handler: H };
  return module.handler;
}

async function storedFiles(): Promise<string[]> {
  const entries = await readdir(storeDir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(storeDir, path.join(entry.parentPath, entry.name)));
}

describe('functions/', () => {
  beforeEach(async () => {
    table = await freshTable(dynalite());
    storeDir = await mkdtemp(path.join(tmpdir(), 'shardwal-fn-'));
  });
  afterEach(async () => {
    vi.unstubAllEnvs();
    await rm(storeDir, { recursive: true, force: true });
  });

  it('put-http buffers (202), status-http reports it, flush-tick makes it durable', async () => {
    const put = await coldStart<HttpHandler>('put-http');
    const status = await coldStart<HttpHandler>('status-http');
    const tick = await coldStart<Handler<unknown, { ticks: number }>>('flush-tick');

    const ack = await put(httpEvent(EventFile.apiPut), lambdaContext());
    expect(ack.statusCode).toBe(202);
    expect(bodyOf(ack)).toEqual({ shard: 'orders', seq: 1, rows: 2, durable: false });
    expect(await storedFiles()).toEqual([]); // nothing on the object store from a put

    const before = await status(httpEvent(EventFile.apiSeqStatus), lambdaContext());
    expect(bodyOf(before)).toMatchObject({ seq: 1, durable: false });

    // A 60 s interval: one tick per scheduled invocation.
    const result = await tick(loadEvent(EventFile.scheduledTick), lambdaContext());
    expect(result).toEqual({ ticks: 1 });
    expect(await storedFiles()).toEqual([path.join('shards', 'orders', 'wal', '0'.repeat(20))]);

    const after = await status(httpEvent(EventFile.apiSeqStatus), lambdaContext());
    expect(bodyOf(after)).toMatchObject({ seq: 1, durable: true, durableSeq: 1 });
    const shard = await status(httpEvent(EventFile.apiStatus), lambdaContext());
    expect(bodyOf(shard)).toMatchObject({ nextSeq: 2, durableSeq: 1, walNextPos: 1, poison: null });
  });

  it('put-http answers a durable put 200 once a tick commits it, and 202 when none does', async () => {
    const put = await coldStart<HttpHandler>('put-http', {
      [SETTINGS.durableWaitMs.env]: '300',
      [SETTINGS.durablePollMs.env]: '20',
    });
    const timedOut = await put(httpEvent(EventFile.apiPutDurable), lambdaContext());
    expect(timedOut.statusCode).toBe(202);
    expect(bodyOf(timedOut)).toEqual({ shard: 'orders', seq: 1, rows: 2, durable: false });

    const patient = await coldStart<HttpHandler>('put-http', {
      [SETTINGS.durableWaitMs.env]: '20000',
      [SETTINGS.durablePollMs.env]: '20',
    });
    const tick = await coldStart<Handler<unknown, { ticks: number }>>('flush-tick');
    let answered = false;
    const waiting = patient(
      httpEvent(EventFile.apiPutDurable, { headers: { 'idempotency-key': 'second' } }),
      lambdaContext(),
    ).finally(() => {
      answered = true;
    });
    // Scheduled invocations, one tick each, until the waiter answers.
    while (!answered) {
      await tick(loadEvent(EventFile.scheduledTick), lambdaContext());
      await sleep(50);
    }
    const durable = await waiting;
    expect(durable.statusCode).toBe(200);
    expect(bodyOf(durable)).toEqual({ shard: 'orders', seq: 2, rows: 2, durable: true });
  });

  it('put-http answers bad input 400 and never 500', async () => {
    const put = await coldStart<HttpHandler>('put-http');
    const result = await put(httpEvent(EventFile.apiPut, { shard: '../x' }), lambdaContext());
    expect(result.statusCode).toBe(400);
    expect(bodyOf(result)).toMatchObject({ error: { kind: 'invalid_input' } });
  });

  it('put-http takes genuine REST API (payload 1.0) events, the console test invocation included', async () => {
    const put = await coldStart<Handler<unknown, APIGatewayProxyStructuredResultV2>>('put-http');
    // The console's test invocation: headers, multiValueHeaders and the query are null.
    const consoleTest = loadEvent<Record<string, unknown>>(EventFile.apiPutRestConsoleTest);
    expect(consoleTest.headers).toBeNull();
    const first = await put(consoleTest, lambdaContext());
    expect(first.statusCode).toBe(202);
    expect(bodyOf(first)).toEqual({ shard: 'orders', seq: 1, rows: 1, durable: false });
    // No body at all (the console sends null): a 400 naming the body, never a 500.
    const empty = await put({ ...consoleTest, body: null }, lambdaContext());
    expect(empty.statusCode).toBe(400);
    expect(bodyOf(empty)).toMatchObject({ error: { kind: 'invalid_input' } });
    // A REST request with headers in their sent case and an Idempotency-Key: a repeat is the same ack.
    const rest = loadEvent<Record<string, unknown>>(EventFile.apiPutRest);
    const second = await put(rest, lambdaContext());
    expect(bodyOf(second)).toEqual({ shard: 'orders', seq: 2, rows: 1, durable: false });
    expect(bodyOf(await put(rest, lambdaContext()))).toEqual(bodyOf(second));
  });

  it('put-http refuses an Idempotency-Key sent twice, saying so', async () => {
    const put = await coldStart<Handler<unknown, APIGatewayProxyStructuredResultV2>>('put-http');
    const rest = loadEvent<Record<string, unknown>>(EventFile.apiPutRest);
    const twice = [
      // HTTP API (and the local gateway) join a repeated header with commas.
      httpEvent(EventFile.apiPut, { headers: { 'idempotency-key': 'k-1, k-1' } }),
      // A REST API names every value in multiValueHeaders; headers holds the last.
      {
        ...rest,
        multiValueHeaders: {
          ...(rest.multiValueHeaders as object),
          'Idempotency-Key': ['k-1', 'k-1'],
        },
      },
    ];
    for (const event of twice) {
      const result = await put(event, lambdaContext());
      expect(result.statusCode).toBe(400);
      expect(bodyOf<{ error: { message: string } }>(result).error.message).toMatch(
        /^Idempotency-Key: sent more than once/,
      );
    }
  });

  it('status-http answers 404 for an unknown shard', async () => {
    const status = await coldStart<HttpHandler>('status-http');
    const result = await status(
      httpEvent(EventFile.apiStatus, { shard: 'nobody' }),
      lambdaContext(),
    );
    expect(result.statusCode).toBe(404);
  });

  it('put-sqs buffers the good messages and reports the bad one', async () => {
    const consume = await coldStart<SqsHandler>('put-sqs');
    const event = sqsEvent(EventFile.sqsBatch);
    const response = await consume(event, lambdaContext());
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: event.Records[2]!.messageId }]);
    const status = await coldStart<HttpHandler>('status-http');
    const shard = await status(
      httpEvent(EventFile.apiStatus, { shard: 'clicks' }),
      lambdaContext(),
    );
    expect(bodyOf(shard)).toMatchObject({ nextSeq: 3 });
  });

  it('flush-worker flushes the named shards and reports the bad message', async () => {
    const consume = await coldStart<SqsHandler>('put-sqs');
    await consume(sqsEvent(EventFile.sqsBatch), lambdaContext());
    const worker = await coldStart<SqsHandler>('flush-worker');
    const event = sqsEvent(EventFile.flushRequests);
    const response = await worker(event, lambdaContext());
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: event.Records[2]!.messageId }]);
    expect(await storedFiles()).toEqual([path.join('shards', 'clicks', 'wal', '0'.repeat(20))]);
  });

  it('put-http and put-sqs send size triggers to the flush queue, and flush-tick fans out through it', async () => {
    const { QueueUrl: queueUrl } = await sqs().send(
      new CreateQueueCommand({ QueueName: `flush-${path.basename(storeDir)}` }),
    );
    const endpoint = await sqs().config.endpoint!();
    const queueEnv = {
      SHARDWAL_FLUSH_QUEUE_URL: queueUrl!,
      SHARDWAL_SQS_ENDPOINT: `${endpoint.protocol}//${endpoint.hostname}:${endpoint.port}`,
      // Every put crosses the trigger; a tick flushes one shard and hands the rest on.
      [SETTINGS.flushTriggerBytes.env]: '1',
      [SETTINGS.maxShardsPerTick.env]: '1',
    };
    const put = await coldStart<HttpHandler>('put-http', queueEnv);
    expect((await put(httpEvent(EventFile.apiPut), lambdaContext())).statusCode).toBe(202);
    const consume = await coldStart<SqsHandler>('put-sqs', queueEnv);
    await consume(sqsEvent(EventFile.sqsBatch), lambdaContext());
    const tick = await coldStart<Handler<unknown, { ticks: number }>>('flush-tick', queueEnv);
    await tick(loadEvent(EventFile.scheduledTick), lambdaContext());

    const bodies: unknown[] = [];
    for (let received = 1; received > 0; ) {
      const { Messages = [] } = await sqs().send(
        new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }),
      );
      received = Messages.length;
      bodies.push(...Messages.map((message) => JSON.parse(message.Body!) as unknown));
    }
    expect(bodies).toEqual(
      expect.arrayContaining([
        { shard: 'orders', reason: 'size-trigger' },
        { shard: 'clicks', reason: 'size-trigger' },
        { shards: [expect.stringMatching(/^(orders|clicks)$/)], reason: 'fan-out' },
      ]),
    );
  });

  describe('cold start validates the configuration once', () => {
    it.each(['0', '-5', '1.5', 'abc', '90000'])(
      'fails on SHARDWAL_FLUSH_INTERVAL_MS=%s, naming it',
      async (value) => {
        const start = coldStart('put-http', { [SETTINGS.flushIntervalMs.env]: value });
        // A fresh module graph has its own ConfigError class: match by shape.
        await expect(start).rejects.toMatchObject({
          name: ConfigError.name,
          kind: ErrorKind.config,
          setting: SETTINGS.flushIntervalMs.env,
        });
        await expect(start).rejects.toThrow(`${SETTINGS.flushIntervalMs.env}="${value}"`);
      },
    );

    it('fails on durable puts with the ticker off, naming both settings', async () => {
      const start = coldStart('flush-tick', { [SETTINGS.flushIntervalMs.env]: 'off' });
      await expect(start).rejects.toThrow(DURABLE_PUTS_ENV);
      await expect(start).rejects.toThrow(`${SETTINGS.flushIntervalMs.env}=off`);
    });

    it('fails on a missing table name', async () => {
      const start = coldStart('status-http', { SHARDWAL_TABLE: '' });
      await expect(start).rejects.toThrow('SHARDWAL_TABLE');
    });
  });
});
