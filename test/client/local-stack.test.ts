/**
 * The client against the real local stack, through a fault-injecting proxy:
 * dropped connections before and after the request reached the service,
 * the service's 429/409/503 of each kind, API Gateway's own 429 and 5xx,
 * answers lost after the put landed, and a stack restart. Read back with
 * the CLI's `dump`, every row is there exactly once, in the batch whose ack
 * the client returned.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../../infra/local/local-stack.js';
import type { PutAck } from '../../lib/client/api-types.js';
import { InvalidInputApiError, KeyReusedApiError } from '../../lib/client/errors.js';
import { ShardwalHttpClient } from '../../lib/client/http-client.js';
import { createHttpProducer } from '../../lib/client/http-producer.js';
import type { BatchOutcome } from '../../lib/client/producer.js';
import { createSqsProducer } from '../../lib/client/sqs-producer.js';
import type { LocalSettings } from '../../lib/local/local-settings.js';
import { seededRandom } from '../../lib/seeded-random.js';
import { cli, jsonLines, useEnv } from '../cli/cli-io.js';
import { testStackSettings } from '../support/local-stack.js';
import {
  type Fault,
  type FaultPlan,
  type FaultProxy,
  gatewayAnswer,
  serviceAnswer,
  startFaultProxy,
} from './fault-proxy.js';

let dataDir: string;
let settings: LocalSettings;
let stack: LocalStack | undefined;
let upstream: string | undefined;
let plan: FaultPlan = () => ({ type: 'pass' });
let proxy: FaultProxy;

// Durable puts wait up to 3 intervals (at least 1 s) by default; a loaded machine can take longer.
const durableWait = useEnv('SHARDWAL_DURABLE_WAIT_MS', '15000');

async function startStack(): Promise<void> {
  stack = await startLocalStack(settings);
  upstream = stack.info.httpUrl;
}

async function restartStack(): Promise<void> {
  upstream = undefined;
  await stack?.stop();
  stack = undefined;
  await startStack();
}

beforeAll(async () => {
  durableWait.set();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'shardwal-client-'));
  settings = testStackSettings(dataDir);
  await startStack();
  proxy = await startFaultProxy(
    () => upstream,
    (request) => plan(request),
  );
});

afterAll(async () => {
  await proxy?.close();
  await stack?.stop();
  durableWait.restore();
  await rm(dataDir, { recursive: true, force: true });
});

/** Quick retries, seeded jitter; Retry-After is still honoured in full. */
function client(seed: number): ShardwalHttpClient {
  return new ShardwalHttpClient({
    endpoint: proxy.url,
    requestTimeoutMs: 20_000,
    retry: {
      random: seededRandom(seed),
      baseDelayMs: 20,
      maxDelayMs: 500,
      poisonedDelayMs: 50,
      maxAttempts: 40,
    },
  });
}

/** Waits until every allocated seq of `shard` is durable. */
async function settled(api: ShardwalHttpClient, shard: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const status = await api.status(shard);
    if (status.durableSeq === status.nextSeq - 1 && status.bufferedBytes === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`shard ${shard} did not settle`);
}

/** The shard's durable rows, by seq. */
async function dumpBySeq(shard: string): Promise<Map<number, unknown[]>> {
  const dump = await cli(['dump', shard, '--data-dir', dataDir]);
  expect(dump.code).toBe(0);
  const bySeq = new Map<number, unknown[]>();
  for (const line of jsonLines(dump.stdout)) {
    const seq = line.seq as number;
    bySeq.set(seq, [...(bySeq.get(seq) ?? []), line.row]);
  }
  return bySeq;
}

/** A plan that injects each of `faults` once (every other request), then one in four at random. */
function faultPlan(faults: Fault[], seed: number): FaultPlan {
  const random = seededRandom(seed);
  const queue = [...faults];
  return ({ method, path: urlPath, n }) => {
    if (method !== 'POST' || !urlPath.endsWith('/rows')) return { type: 'pass' };
    if (n % 2 === 1 && queue.length > 0) return queue.shift()!;
    if (random() < 0.25) return faults[Math.floor(random() * faults.length)]!;
    return { type: 'pass' };
  };
}

const RETRYABLE_FAULTS: Fault[] = [
  { type: 'drop-before' },
  { type: 'drop-after' },
  { type: 'answer', label: '429 backpressure', answer: serviceAnswer(429, 'backpressure', 1) },
  { type: 'answer', label: 'gateway 429', answer: gatewayAnswer(429, 'Too Many Requests') },
  { type: 'answer', label: '409 in_progress', answer: serviceAnswer(409, 'in_progress', 1) },
  { type: 'answer', label: '503 unavailable', answer: serviceAnswer(503, 'unavailable') },
  { type: 'answer', label: '503 poisoned', answer: serviceAnswer(503, 'poisoned') },
  { type: 'answer', label: 'gateway 500', answer: gatewayAnswer(500, 'Internal Server Error') },
  {
    type: 'answer-after',
    label: '503 unavailable after landing',
    answer: serviceAnswer(503, 'unavailable'),
  },
  {
    type: 'answer-after',
    label: 'gateway 504 after landing',
    answer: gatewayAnswer(504, 'Endpoint request timed out'),
  },
];

// About 250 bytes a row: a 40-row batch is over the client's gzip threshold.
const rowsOf = (shard: string, count: number) =>
  Array.from({ length: count }, (_, i) => ({
    shard,
    id: i,
    payload: `row-${i}-${'x'.repeat(200)}`,
  }));

describe('the client against the local stack with injected faults', () => {
  it('acknowledges every row exactly once through drops, 429/409/503, lost acks and a restart', async () => {
    plan = faultPlan(RETRYABLE_FAULTS, 41);
    const api = client(7);
    const shard = 'faults-buffered';
    const acks = new Map<number, { ack: PutAck; rows: unknown[] }>();
    let restart: Promise<void> | undefined;
    const producer = createHttpProducer(api, shard, {
      maxBatchRows: 40,
      maxInFlight: 4,
      lingerMs: null,
      onBatch: (outcome: BatchOutcome<PutAck>) => {
        if (outcome.ack) {
          acks.set(outcome.batch.index, {
            ack: outcome.ack,
            rows: outcome.batch.rowTexts.map((text) => JSON.parse(text)),
          });
        }
        // Midway, the stack stops (final flush) and starts again on the same data folder.
        if (acks.size === 20) restart ??= restartStack();
      },
    });
    const rows = rowsOf(shard, 2_400);
    for (const row of rows) await producer.append(row);
    await producer.close();
    expect(restart).toBeDefined();
    await restart;

    expect(acks.size).toBe(60);
    for (const label of [
      'drop-before',
      'drop-after',
      '429 backpressure',
      'gateway 429',
      '409 in_progress',
      '503 unavailable',
      '503 poisoned',
      'gateway 500',
      '503 unavailable after landing',
      'gateway 504 after landing',
    ]) {
      expect(proxy.injected.get(label), label).toBeGreaterThan(0);
    }

    await settled(api, shard);
    const bySeq = await dumpBySeq(shard);
    const dumped = [...bySeq.values()].flat();
    expect(dumped).toHaveLength(rows.length);
    expect(new Set(dumped.map((row) => (row as { id: number }).id)).size).toBe(rows.length);
    // Each batch's rows sit at exactly the seq its ack named.
    for (const { ack, rows: batchRows } of acks.values()) {
      expect(bySeq.get(ack.seq)).toEqual(batchRows);
    }
    expect(new Set([...acks.values()].map(({ ack }) => ack.seq)).size).toBe(acks.size);
  });

  it('retries a fenced durable put with its key and returns the original, durable ack', async () => {
    plan = faultPlan(
      [
        { type: 'answer', label: '409 fenced', answer: serviceAnswer(409, 'fenced') },
        {
          type: 'answer-after',
          label: '409 fenced after landing',
          answer: serviceAnswer(409, 'fenced'),
        },
        { type: 'drop-after' },
        {
          type: 'answer-after',
          label: '503 poisoned after landing',
          answer: serviceAnswer(503, 'poisoned'),
        },
      ],
      5,
    );
    const api = client(8);
    const shard = 'faults-durable';
    const acks: PutAck[] = [];
    for (let batch = 0; batch < 8; batch++) {
      const rows = rowsOf(shard, 5).map((row) => ({ ...row, batch }));
      acks.push(await api.put(shard, rows, { durable: true, key: `durable-${batch}` }));
    }
    expect(proxy.injected.get('409 fenced')).toBeGreaterThan(0);
    expect(proxy.injected.get('409 fenced after landing')).toBeGreaterThan(0);
    expect(acks.every((ack) => ack.durable)).toBe(true);
    // One put after the other: seqs rise with the batches (a repeat would reuse its seq).
    const seqs = acks.map((ack) => ack.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(8);
    const bySeq = await dumpBySeq(shard);
    expect([...bySeq.values()].flat()).toHaveLength(40);
    acks.forEach((ack, batch) => {
      expect(bySeq.get(ack.seq)!.map((row) => (row as { batch: number }).batch)).toEqual(
        Array(5).fill(batch),
      );
    });
  });

  it('surfaces key_reused and invalid_input from the service without retrying', async () => {
    plan = () => ({ type: 'pass' });
    const api = client(9);
    const shard = 'client-errors';
    await api.put(shard, [{ a: 1 }], { key: 'reused' });
    const before = proxy.requests();
    await expect(api.put(shard, [{ a: 2 }], { key: 'reused' })).rejects.toBeInstanceOf(
      KeyReusedApiError,
    );
    const invalid = await api.put(shard, [{ id: '' }], { keyField: 'id' }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(InvalidInputApiError);
    expect((invalid as Error).message).toMatch(/^400 invalid_input: body\.rows\[0\]\.id: /);
    expect(proxy.requests() - before).toBe(2);
  });

  it('puts rows through the SQS ingest queue, each exactly once', async () => {
    const { SQSClient } = await import('@aws-sdk/client-sqs');
    const sqs = new SQSClient({
      endpoint: stack!.info.sqsEndpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const shard = 'via-sqs';
    try {
      const producer = await createSqsProducer({
        sqs,
        queueUrl: stack!.info.queueUrl,
        shard,
        maxBatchRows: 25,
        lingerMs: null,
      });
      const rows = rowsOf(shard, 300);
      for (const row of rows) await producer.append(row);
      await producer.close();
      expect(producer.stats()).toMatchObject({ ackedRows: 300, sentBatches: 12 });
      const api = client(10);
      for (let i = 0; i < 200; i++) {
        const status = await api.status(shard).catch(() => undefined);
        if (status?.nextSeq === 13) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await settled(api, shard);
      const dumped = [...(await dumpBySeq(shard)).values()].flat();
      expect(dumped).toHaveLength(300);
      expect(new Set(dumped.map((row) => (row as { id: number }).id)).size).toBe(300);
    } finally {
      sqs.destroy();
    }
  });
});
