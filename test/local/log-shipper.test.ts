/**
 * A stock log shipper, configured and nothing else: pino's `pino-http-send`
 * transport pointed at the local stack, once with its default JSON body
 * (`{"logs": [...]}`, read with `?rows=logs`) and once with NDJSON (its
 * `bodyType: 'ndjson'`, labelled `application/x-ndjson` by one header).
 * Every line pino wrote lands once, in order, byte for byte (`shardwal
 * dump`). The shipper sends each batch without waiting for the last, so the
 * test logs one batch's lines at a time and waits for that batch's ack
 * (the shard's `nextSeq`) before the next: order between batches in flight
 * at once is the shipper's, not the service's.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { gzipSync } from 'node:zlib';
import pino from 'pino';
import { createWriteStream } from 'pino-http-send';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../../infra/local/local-stack.js';
import { parseExact } from '../../lib/json/exact-parse.js';
import { memberOf } from '../../lib/json/exact-tree.js';
import { cli } from '../cli/cli-io.js';
import { testStackSettings } from '../support/local-stack.js';
import { eventually, send } from './http-client.js';

let dataDir: string;
let stack: LocalStack;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'shardwal-shipper-'));
  stack = await startLocalStack(testStackSettings(dataDir));
});

afterAll(async () => {
  await stack?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

const BATCH = 5;
const BATCHES = 5;
/** Messages that stress exactness: quotes, escapes, non-ASCII, astral characters, numbers. */
const MESSAGES = [
  'plain',
  'quote " and \\ backslash',
  'caf\u00e9 \u00fc\u00df',
  '\u{1F600} astral',
  'tab\tnew\nline',
];

async function statusOf(shard: string): Promise<{ nextSeq?: number; durableSeq?: number }> {
  const res = await send('GET', `${stack.info.httpUrl}/v1/shards/${shard}`);
  return res.status === 200 ? (res.body as { nextSeq?: number; durableSeq?: number }) : {};
}

/** The row texts `shardwal dump` prints for `shard`, exactly. */
async function dumpedRows(shard: string): Promise<string[]> {
  const dump = await cli(['dump', shard, '--data-dir', dataDir]);
  expect(dump.code, dump.stderr).toBe(0);
  return dump.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const document = parseExact(line, { root: 'line' });
      if (document.root.kind !== 'object') throw new Error(`not an object: ${line}`);
      return document.minified(memberOf(document.root, 'row')!);
    });
}

/** Logs BATCHES × BATCH lines through pino-http-send configured by `options`; returns pino's lines. */
async function ship(
  shard: string,
  options: Parameters<typeof createWriteStream>[0],
): Promise<string[]> {
  const shipper = createWriteStream({
    batchSize: BATCH,
    timeout: 60_000,
    retries: 0,
    silent: true,
    ...options,
  });
  const written: string[] = [];
  const tee = new PassThrough();
  tee.on('data', (chunk: Buffer) => {
    written.push(
      ...chunk
        .toString('utf8')
        .split('\n')
        .filter((line) => line !== ''),
    );
    shipper.write(chunk);
  });
  const logger = pino({ base: { service: 'checkout' } }, tee);
  for (let batch = 0; batch < BATCHES; batch++) {
    for (let i = 0; i < BATCH; i++) {
      logger.info({ batch, i, amount: batch * 10.5 + i }, MESSAGES[i % MESSAGES.length]);
    }
    await eventually(
      async () => ((await statusOf(shard)).nextSeq === batch + 2 ? true : undefined),
      15_000,
      `${shard} batch ${batch + 1} acked`,
    );
  }
  await eventually(
    async () => ((await statusOf(shard)).durableSeq === BATCHES ? true : undefined),
    15_000,
    `${shard} durable`,
  );
  return written;
}

describe('pino-http-send', () => {
  it('lands every line once, in order, byte for byte, with its default {"logs": [...]} body and ?rows=logs', async () => {
    const shard = 'pino-json';
    const written = await ship(shard, {
      url: `${stack.info.httpUrl}/v1/shards/${shard}/rows?rows=logs`,
    });
    expect(written).toHaveLength(BATCH * BATCHES);
    expect(await dumpedRows(shard)).toEqual(written);
  }, 60_000);

  it('lands every line once, in order, byte for byte, as NDJSON', async () => {
    const shard = 'pino-ndjson';
    const written = await ship(shard, {
      url: `${stack.info.httpUrl}/v1/shards/${shard}/rows`,
      bodyType: 'ndjson',
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect(written).toHaveLength(BATCH * BATCHES);
    expect(await dumpedRows(shard)).toEqual(written);
  }, 60_000);
});

/** Lines like a shipper's records: a timestamp, a level, exact-sensitive text and numbers. */
function records(
  count: number,
  extra: (i: number) => Record<string, unknown> = () => ({}),
): string[] {
  return Array.from({ length: count }, (_, i) =>
    JSON.stringify({
      ...extra(i),
      level: 'info',
      message: MESSAGES[i % MESSAGES.length],
      n: i,
      big: '12345678901234567890',
    }),
  );
}

describe('the requests Vector and Fluent Bit send (docs/log-shippers.md)', () => {
  it.each<[string, string, (lines: string[]) => { body: Buffer; headers: Record<string, string> }]>(
    [
      [
        'Vector http sink, NDJSON framing, gzip',
        '',
        (lines) => ({
          body: gzipSync(`${lines.join('\n')}\n`),
          headers: { 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
        }),
      ],
      [
        'Vector http sink, default framing (a JSON array)',
        '',
        (lines) => ({
          body: Buffer.from(`[${lines.join(',')}]`),
          headers: { 'content-type': 'application/json' },
        }),
      ],
      [
        'Fluent Bit, Format json',
        '',
        (lines) => ({
          body: Buffer.from(`[${lines.join(',')}]`),
          headers: { 'content-type': 'application/json' },
        }),
      ],
      [
        'Fluent Bit before 3.0, Format json_lines (labelled application/json)',
        '?format=ndjson',
        (lines) => ({
          body: Buffer.from(`${lines.join('\n')}\n`),
          headers: { 'content-type': 'application/json' },
        }),
      ],
      [
        'Fluent Bit 3.0 and later, Format json_lines, compress gzip',
        '?format=ndjson',
        (lines) => ({
          body: gzipSync(`${lines.join('\n')}\n`),
          headers: { 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
        }),
      ],
    ],
  )('lands %s exactly', async (label, query, request) => {
    const shard = `shipper-${label.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}`.slice(0, 64);
    const lines = records(7, (i) =>
      label.startsWith('Fluent')
        ? { date: 1764633600.123456 + i }
        : { timestamp: `2026-12-01T00:00:0${i}.000Z` },
    );
    const { body, headers } = request(lines);
    const res = await send('POST', `${stack.info.httpUrl}/v1/shards/${shard}/rows${query}`, {
      body,
      headers,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    await eventually(
      async () => ((await statusOf(shard)).durableSeq === 1 ? true : undefined),
      15_000,
      `${shard} durable`,
    );
    expect(await dumpedRows(shard)).toEqual(lines);
  });
});
