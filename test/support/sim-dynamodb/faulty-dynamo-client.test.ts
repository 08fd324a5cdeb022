import {
  ConditionalCheckFailedException,
  GetItemCommand,
  InternalServerError,
  PutItemCommand,
  ThrottlingException,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { ConfigError, UnavailableError } from '../../../lib/errors.js';
import { ensureTable } from '../../../lib/memtable/create-table.js';
import { readShardRecord } from '../../../lib/memtable/shard-record.js';
import { seededRandom } from '../../../lib/seeded-random.js';
import {
  type FaultSettings,
  FaultyDynamoClient,
  type FaultyDynamoClientOptions,
} from './faulty-dynamo-client.js';
import { MemoryDynamoDB } from './memory-dynamodb.js';
import { classifyRetryError, RetryErrorType } from './sdk-retry.js';

const TABLE = 'faulty';
const key = { pk: { S: 'shard#s1' }, sk: { S: 'meta' } };

async function setup(options: Partial<FaultyDynamoClientOptions> = {}) {
  let applied = 0;
  const memory = new MemoryDynamoDB({
    beforeApply: (_command, info) => {
      if (info.operation === 'UpdateItem') applied++;
    },
  });
  await ensureTable({ client: memory as never, tableName: TABLE });
  const sleeps: number[] = [];
  const client = new FaultyDynamoClient(memory, {
    random: seededRandom(7),
    sleep: async (ms) => void sleeps.push(ms),
    ...options,
  });
  const count = async () =>
    (await memory.send(new GetItemCommand({ TableName: TABLE, Key: key }))).Item?.n?.N;
  return { memory, client, sleeps, count, applied: () => applied };
}

const increment = () =>
  new UpdateItemCommand({
    TableName: TABLE,
    Key: key,
    UpdateExpression: 'ADD n :one',
    ExpressionAttributeValues: { ':one': { N: '1' } },
  });

const createOnce = () =>
  new PutItemCommand({
    TableName: TABLE,
    Item: key,
    ConditionExpression: 'attribute_not_exists(pk)',
  });

describe('FaultyDynamoClient', () => {
  describe('send', () => {
    it('applies an ADD twice when its response is lost and the emulated SDK retry re-sends it', async () => {
      const { client, count } = await setup();
      client.script('UpdateItem', 'lostResponse');
      const out = await client.send(increment());
      expect(out.$metadata).toMatchObject({ attempts: 2 });
      expect(await count()).toBe('2');
      expect(client.counters).toMatchObject({
        requests: 1,
        attempts: 2,
        lostResponses: 1,
        retries: 1,
        surfacedErrors: 0,
      });
    });

    it('fails the condition of a conditional write that landed before its response was lost', async () => {
      const { client, memory } = await setup();
      client.script('PutItem', 'lostResponse');
      const error = await client.send(createOnce()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConditionalCheckFailedException);
      expect(error).toMatchObject({ $metadata: { httpStatusCode: 400, attempts: 2 } });
      expect(memory.items(TABLE)).toHaveLength(1);
    });

    it('changes nothing when a throttle fails the request before it applies', async () => {
      const { client, count, applied } = await setup({ maxAttempts: 1 });
      client.script('UpdateItem', 'throttle');
      const error = (await client
        .send(increment())
        .catch((e: unknown) => e)) as ThrottlingException;
      expect(['ThrottlingException', 'ProvisionedThroughputExceededException']).toContain(
        error.name,
      );
      expect(error.$metadata).toMatchObject({ httpStatusCode: 400, attempts: 1 });
      expect(await count()).toBeUndefined();
      expect(applied()).toBe(0);
    });

    it('retries throttles after the throttling backoff and gives up after maxAttempts', async () => {
      const { client, count, sleeps } = await setup();
      client.script('UpdateItem', 'throttle', 'throttle', 'throttle', 'throttle');
      const error = (await client
        .send(increment())
        .catch((e: unknown) => e)) as ThrottlingException;
      expect(error.$metadata).toMatchObject({ attempts: 4 });
      expect(await count()).toBeUndefined();
      // Full jitter under 1000 * 2^retry ms: what the SDK waits after a throttle.
      expect(sleeps).toHaveLength(3);
      for (const [retry, ms] of sleeps.entries()) {
        expect(ms).toBeGreaterThanOrEqual(0);
        expect(ms).toBeLessThan(1000 * 2 ** retry);
      }
      expect(error.$metadata).toMatchObject({ totalRetryDelay: sleeps.reduce((a, b) => a + b, 0) });
    });

    it("surfaces only the last attempt's error, after the attempts before it", async () => {
      const { client, count, sleeps } = await setup();
      client.script(
        'UpdateItem',
        'internalError',
        'internalError',
        'internalError',
        'lostResponse',
      );
      const error = (await client.send(increment()).catch((e: unknown) => e)) as Error & {
        code?: string;
        $metadata?: object;
      };
      expect(error).toMatchObject({ name: 'TimeoutError', code: 'ECONNRESET' });
      expect(error.$metadata).not.toHaveProperty('httpStatusCode');
      // The 500s changed nothing; the last attempt applied, then lost its response.
      expect(await count()).toBe('1');
      for (const [retry, ms] of sleeps.entries()) expect(ms).toBeLessThan(25 * 2 ** retry);
    });

    it('counts what it injected, consistently with what reached the table', async () => {
      const { client, applied } = await setup({
        faults: { throttle: 0.2, internalError: 0.1, lostResponse: 0.15 },
      });
      let failures = 0;
      for (let i = 0; i < 200; i++) {
        await client.send(increment()).catch(() => failures++);
      }
      const c = client.counters;
      expect(c.requests).toBe(200);
      expect(c.attempts).toBe(c.requests + c.retries);
      expect(applied()).toBe(c.attempts - c.throttles - c.internalErrors);
      expect(c.surfacedErrors).toBe(failures);
      expect(c.throttles).toBeGreaterThan(0);
      expect(c.internalErrors).toBeGreaterThan(0);
      expect(c.lostResponses).toBeGreaterThan(0);
      expect(client.countersByOperation.UpdateItem).toEqual(c);
    });

    it('injects the same faults for the same seed, and others for another', async () => {
      const run = async (seed: number) => {
        const { client, count } = await setup({
          random: seededRandom(seed),
          faults: { throttle: 0.3, lostResponse: 0.3, latency: 0.5, maxLatencyMs: 20 },
        });
        const outcomes: string[] = [];
        for (let i = 0; i < 40; i++) {
          outcomes.push(
            await client.send(increment()).then(
              () => 'ok',
              (e: Error) => e.name,
            ),
          );
        }
        return { outcomes, counters: { ...client.counters }, total: await count() };
      };
      expect(await run(1)).toEqual(await run(1));
      expect((await run(2)).outcomes).not.toEqual((await run(1)).outcomes);
    });

    it('injects nothing while faults are disabled, then resumes with the script', async () => {
      const { client, count } = await setup({ faults: { throttle: 1 } });
      client.script('UpdateItem', 'lostResponse');
      client.faults.enabled = false;
      for (let i = 0; i < 5; i++) await client.send(increment());
      expect(await count()).toBe('5');
      expect(client.counters).toMatchObject({ throttles: 0, lostResponses: 0, retries: 0 });
      client.faults.enabled = true;
      client.faults.throttle = 0;
      await client.send(increment());
      expect(client.counters.lostResponses).toBe(1);
      expect(await count()).toBe('7');
    });

    it('stops retrying once the client-wide retry quota is spent', async () => {
      const { client } = await setup({ faults: { internalError: 1 } });
      for (let i = 0; i < 20; i++) await client.send(increment()).catch(() => undefined);
      // 500 tokens, 14 per retry of a 500: 35 retries, then every request gets one attempt.
      expect(client.counters.retries).toBe(35);
      expect(client.counters.quotaRefusals).toBeGreaterThan(0);
      expect(client.quota.capacity).toBeLessThan(14);
    });

    it('takes per-operation probabilities over the defaults', async () => {
      const { client } = await setup({
        faults: { lostResponse: 1, byOperation: { GetItem: { lostResponse: 0 } } },
        maxAttempts: 1,
      });
      await expect(
        client.send(new GetItemCommand({ TableName: TABLE, Key: key })),
      ).resolves.toBeDefined();
      await expect(client.send(increment())).rejects.toMatchObject({ name: 'TimeoutError' });
    });

    it('reaches shardwal as the UnavailableError its adapter makes of a lost response', async () => {
      const { client } = await setup({ maxAttempts: 1 });
      client.script('GetItem', 'lostResponse');
      const table = { client: client as never, tableName: TABLE };
      await expect(readShardRecord(table, 's1')).rejects.toBeInstanceOf(UnavailableError);
    });
  });

  describe('constructor', () => {
    it.each<[string, Partial<FaultSettings>]>([
      ['a probability above 1', { throttle: 1.5 }],
      ['faults summing past 1', { throttle: 0.6, lostResponse: 0.6 }],
      ['a bad per-operation probability', { byOperation: { PutItem: { internalError: -1 } } }],
    ])('refuses %s', async (_what, faults) => {
      const memory = new MemoryDynamoDB();
      expect(() => new FaultyDynamoClient(memory, { random: seededRandom(1), faults })).toThrow(
        ConfigError,
      );
    });
  });
});

describe('classifyRetryError', () => {
  it.each<[string, unknown, RetryErrorType]>([
    [
      'a throttle by name',
      new ThrottlingException({ $metadata: { httpStatusCode: 400 }, message: 'x' }),
      'THROTTLING',
    ],
    ['a 429', { name: 'Whatever', $metadata: { httpStatusCode: 429 } }, 'THROTTLING'],
    [
      'a 500',
      new InternalServerError({ $metadata: { httpStatusCode: 500 }, message: 'x' }),
      'TRANSIENT',
    ],
    [
      'a reset connection',
      Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }),
      'TRANSIENT',
    ],
    ['a timeout', Object.assign(new Error('t'), { name: 'TimeoutError' }), 'TRANSIENT'],
    ['a 501', { name: 'NotImplemented', $metadata: { httpStatusCode: 501 } }, 'SERVER_ERROR'],
    [
      'a failed condition',
      new ConditionalCheckFailedException({ $metadata: { httpStatusCode: 400 }, message: 'x' }),
      'CLIENT_ERROR',
    ],
    [
      'an abort',
      Object.assign(new Error('a'), { name: 'AbortError', code: 'ECONNRESET' }),
      'CLIENT_ERROR',
    ],
  ])('classifies %s as the SDK does', (_what, error, expected) => {
    expect(classifyRetryError(error)).toBe(expected);
  });

  it('keeps the SDK names of its classes', () => {
    expect(RetryErrorType).toEqual({
      throttling: 'THROTTLING',
      transient: 'TRANSIENT',
      serverError: 'SERVER_ERROR',
      clientError: 'CLIENT_ERROR',
    });
  });
});
