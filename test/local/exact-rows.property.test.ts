/**
 * Done-when of issue 8, the transport half: random VALID puts — numbers past
 * double precision, `-0`, exponents, astral and escaped characters, nesting
 * to the row limit, string and number keys, deletes, whitespace anywhere —
 * sent over HTTP (the local gateway: text, vendor JSON as bytes, gzip, no
 * Content-Type, a byte order mark) and over SQS (the put-sqs handler with
 * real record shapes, raw and inside an SNS envelope) come back from
 * `shardwal dump` byte for byte: each row's text as sent minus insignificant
 * whitespace, each key as its id (type and exact value). Seeded: a failure
 * replays.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { SQSRecord } from 'aws-lambda';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../../infra/local/local-stack.js';
import { parseExact } from '../../lib/json/exact-parse.js';
import { memberOf } from '../../lib/json/exact-tree.js';
import { lambdaContext } from '../../lib/local/lambda-context.js';
import { serviceFromEnv } from '../../lib/runtime/service.js';
import { ingestQueuesFromEnv } from '../../lib/sqs/ingest-queues-from-env.js';
import { handlePutMessages } from '../../lib/sqs/put-messages.js';
import { cli, useEnv } from '../cli/cli-io.js';
import { bodyTokens, gaps, type PutCase, putCase, spaced } from '../http/exact-json-arbitraries.js';
import { SqsSample, sample } from '../sqs/events.js';
import { testStackSettings } from '../support/local-stack.js';
import { eventually, send } from './http-client.js';

let dataDir: string;
let stack: LocalStack;
let run = 0;

const durableWait = useEnv('SHARDWAL_DURABLE_WAIT_MS', '15000');

beforeAll(async () => {
  durableWait.set();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'shardwal-exact-'));
  stack = await startLocalStack(testStackSettings(dataDir));
});

afterAll(async () => {
  await stack?.stop();
  durableWait.restore();
  await rm(dataDir, { recursive: true, force: true });
});

/** How a put travels. */
const Transport = {
  httpText: 'http-text',
  httpTextBom: 'http-text-bom',
  httpVendorJson: 'http-vendor-json',
  httpGzip: 'http-gzip',
  httpNoContentType: 'http-no-content-type',
  sqs: 'sqs',
  sqsSns: 'sqs-sns',
} as const;
type Transport = (typeof Transport)[keyof typeof Transport];

const transport = fc.constantFrom(...Object.values(Transport));

/** One dump line, read exactly: the row and key as the minified text printed. */
interface DumpLine {
  seq: number;
  key?: string;
  delete?: boolean;
  row?: string;
}

function readDumpLine(line: string): DumpLine {
  const document = parseExact(line, { root: 'line' });
  const root = document.root;
  if (root.kind !== 'object') throw new Error(`not an object: ${line}`);
  const text = (name: string) => {
    const value = memberOf(root, name);
    return value === undefined ? undefined : document.minified(value);
  };
  return {
    seq: Number(text('seq')),
    ...(text('key') === undefined ? {} : { key: text('key') }),
    ...(text('delete') === 'true' ? { delete: true } : {}),
    ...(text('row') === undefined ? {} : { row: text('row') }),
  };
}

/** What the dump must show for `put` at `seq`. */
function expectedLines(put: PutCase, seq: number): DumpLine[] {
  return put.rows.map((row) => ({
    seq,
    ...(row.keyId === undefined ? {} : { key: row.keyId }),
    ...(row.delete ? { delete: true } : { row: row.tokens.join('') }),
  }));
}

async function putOverHttp(shard: string, body: string, how: Transport): Promise<void> {
  const url = `${stack.info.httpUrl}/v1/shards/${shard}/rows`;
  const headers: Record<string, string> = { 'idempotency-key': randomUUID() };
  let bytes = Buffer.from(body);
  if (how === Transport.httpText) headers['content-type'] = 'application/json';
  if (how === Transport.httpTextBom) {
    headers['content-type'] = 'application/json; charset=utf-8';
    bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]);
  }
  if (how === Transport.httpVendorJson) headers['content-type'] = 'application/vnd.shardwal+json';
  if (how === Transport.httpGzip) {
    // As API Gateway takes gzip: a JSON type it passes as bytes (application/json arrives as text: 415).
    headers['content-type'] = 'application/vnd.shardwal+json';
    headers['content-encoding'] = 'gzip';
    bytes = gzipSync(bytes);
  }
  const res = await send('POST', url, { body: bytes, headers });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
}

async function putOverSqs(body: string, how: Transport): Promise<void> {
  const template = sample(SqsSample.standardBatch).Records[1]!;
  const messageBody =
    how === Transport.sqsSns
      ? JSON.stringify({
          Type: 'Notification',
          MessageId: randomUUID(),
          TopicArn: 'arn:aws:sns:us-east-1:000000000000:producers',
          Message: body,
        })
      : body;
  const record: SQSRecord = { ...template, messageId: randomUUID(), body: messageBody };
  const service = serviceFromEnv();
  const response = await handlePutMessages(
    { Records: [record] },
    lambdaContext('shardwal-put-sqs', { timeoutMs: 60_000 }),
    service.put,
    ingestQueuesFromEnv(),
  );
  expect(response.batchItemFailures).toEqual([]);
}

async function durableSeq(shard: string): Promise<number> {
  const res = await send('GET', `${stack.info.httpUrl}/v1/shards/${shard}`);
  return (res.body as { durableSeq?: number }).durableSeq ?? 0;
}

describe('shardwal dump', () => {
  it('returns every valid row put over HTTP or SQS byte for byte, and each key by type and exact value', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ put: putCase(4), how: transport, between: gaps }), {
          minLength: 1,
          maxLength: 3,
        }),
        async (puts) => {
          const shard = `exact-${++run}`;
          const expected: DumpLine[] = [];
          for (const [i, { put, how, between }] of puts.entries()) {
            if (how === Transport.sqs || how === Transport.sqsSns) {
              await putOverSqs(spaced(bodyTokens(put, shard), between), how);
            } else {
              await putOverHttp(shard, spaced(bodyTokens(put), between), how);
            }
            // Puts run one after another, so the i-th put is batch i + 1.
            expected.push(...expectedLines(put, i + 1));
          }
          await eventually(
            async () => ((await durableSeq(shard)) === puts.length ? true : undefined),
            20_000,
            `${shard} durable`,
          );
          const dump = await cli(['dump', shard, '--data-dir', dataDir]);
          expect(dump.code, dump.stderr).toBe(0);
          const lines = dump.stdout.split('\n').filter((line) => line !== '');
          expect(lines.map(readDumpLine)).toEqual(expected);
        },
      ),
      { seed: 20_260_312, numRuns: 24 },
    );
  }, 180_000);
});
