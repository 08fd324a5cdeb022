/**
 * Done-when of issue 8, the refusing half: random INVALID puts — bad UTF-8,
 * lone surrogates, duplicate members, bad JSON, wrong types, oversize rows,
 * bodies and nesting, gzip bombs, unsupported media types and encodings,
 * keys reused with other payloads, Binary keys too long — get a 4xx (HTTP)
 * or a dead letter with the reason (SQS) that names the problem, and change
 * nothing stored: every table item and object is as it was. Seeded.
 */
import { gzipSync } from 'node:zlib';
import type { SQSRecord } from 'aws-lambda';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { ErrorKind } from '../../lib/errors.js';
import { handlePut } from '../../lib/http/put-route.js';
import { handlePutMessages } from '../../lib/sqs/put-messages.js';
import { SqsSample, sample, withRecord } from '../sqs/events.js';
import { RecordingQueues } from '../sqs/recording-queues.js';
import { bodyOf, EventFile, type HttpEventChanges, httpEvent } from '../support/events.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';
import { lambdaContext } from '../support/lambda-context.js';
import { bodyTokens, deepValue, jsonString, putCase, spaced } from './exact-json-arbitraries.js';
import { storedState } from './stored.js';

const dynalite = useDynalite();
const LIMITS = { maxRowsPerPut: 5, maxBodyBytes: 16 * 1024, maxDecodedBodyBytes: 32 * 1024 };
const SHARD = 'orders';

let f: Fixture;
let queues: RecordingQueues;
let used = 0;

beforeAll(async () => {
  f = await fixture(dynalite(), LIMITS);
  queues = new RecordingQueues();
});

/** What a refusal must look like. */
interface Expected {
  status: number;
  kind: string;
  /** The start of the message: the field, header or setting it names. */
  names: RegExp;
}

/** An invalid input, by the way it travels. */
type Case =
  | {
      transport: 'http';
      label: string;
      changes: HttpEventChanges;
      expected: Expected;
      before?: HttpEventChanges;
    }
  | {
      transport: 'sqs';
      label: string;
      body: string;
      attributes?: SQSRecord['messageAttributes'];
      expected: Expected;
      before?: string;
    };

const invalid = (names: RegExp): Expected => ({ status: 400, kind: ErrorKind.invalidInput, names });
const http = (label: string, changes: HttpEventChanges, expected: Expected): Case => ({
  transport: 'http',
  label,
  changes,
  expected,
});
const sqs = (label: string, body: string, expected: Expected): Case => ({
  transport: 'sqs',
  label,
  body,
  expected,
});
const base64 = (bytes: Buffer, headers: Record<string, string> = {}): HttpEventChanges => ({
  body: bytes.toString('base64'),
  isBase64Encoded: true,
  headers,
});

/** A valid body to break: its text, without a trailing whitespace run. */
const validBody = fc
  .record({
    put: putCase(3),
    between: fc.array(fc.constantFrom('', ' ', '\n'), { minLength: 1, maxLength: 4 }),
  })
  .map(({ put, between }) => spaced(bodyTokens(put), between).trimEnd());
const validMessage = fc
  .record({ put: putCase(3) })
  .map(({ put }) => bodyTokens(put, SHARD).join(''));

const badUtf8 = fc
  .tuple(
    validBody,
    fc.constantFrom(
      [0xff],
      [0xc0, 0x80],
      [0xed, 0xa0, 0x80],
      [0xe2, 0x82],
      [0xf5, 0x80, 0x80, 0x80],
      [0x80],
    ),
  )
  .map(([body, bad]) => {
    const text = Buffer.from(body);
    // Inside the first string of the body, where a bad byte is the only problem.
    const quote = text.indexOf(0x22, 0) + 1;
    const bytes = Buffer.concat([text.subarray(0, quote), Buffer.from(bad), text.subarray(quote)]);
    return http(
      'bad UTF-8',
      base64(bytes),
      invalid(new RegExp(`^body: invalid UTF-8 at byte ${quote}:`)),
    );
  });

const loneSurrogate = fc
  .tuple(
    fc.constantFrom('\\ud800', '\\uDBFF', '\\udc00', '\\ud83d\\u0041', '\\ude00\\ud83d'),
    fc.boolean(),
  )
  .chain(([lone, overSqs]) => {
    const row = `{"s":"a${lone}b"}`;
    return fc.constant(
      overSqs
        ? sqs(
            'escaped lone surrogate',
            `{"shard":"${SHARD}","rows":[${row}]}`,
            invalid(/^body\.rows\[0\]\.s: .*surrogate/),
          )
        : http(
            'escaped lone surrogate',
            { body: `{"rows":[${row}]}` },
            invalid(/^body\.rows\[0\]\.s: .*surrogate/),
          ),
    );
  });

const rawLoneSurrogate = fc
  .constantFrom('\ud800', '\udfff')
  .map((unit) =>
    http(
      'raw lone surrogate in a text body',
      { body: `{"rows":[{"s":"x${unit}"}]}` },
      invalid(/^body\.rows\[0\]\.s: .*surrogate/),
    ),
  );

const duplicateMember = fc.tuple(jsonString(4), fc.boolean()).map(([name, overSqs]) => {
  const spelled = name.value === '' ? '"\\u0000"' : name.text;
  const again = JSON.stringify(name.value === '' ? '\u0000' : name.value);
  const row = `{${spelled}:1,"other":2,${again}:3}`;
  return overSqs
    ? sqs('duplicate member', `{"shard":"${SHARD}","rows":[${row}]}`, invalid(/^body\.rows\[0\]/))
    : http('duplicate member', { body: `{"rows":[${row}]}` }, invalid(/^body\.rows\[0\]/));
});

const badJson = fc.oneof(
  fc
    .tuple(validBody, fc.nat())
    .map(([body, at]) =>
      http('truncated body', { body: body.slice(0, at % body.length) }, invalid(/^body/)),
    ),
  fc
    .tuple(validBody, fc.constantFrom('x', ',', ',{}', '}', ' 1'))
    .map(([body, tail]) => http('trailing text', { body: `${body}${tail}` }, invalid(/^body/))),
  fc
    .constantFrom(
      '01',
      '+1',
      '.5',
      '1.',
      '1e',
      '-',
      'NaN',
      'Infinity',
      '0x10',
      "'a'",
      'True',
      '1_0',
      '--1',
    )
    .map((bad) =>
      http(
        `bad number ${bad}`,
        { body: `{"rows":[{"n":${bad}}]}` },
        invalid(/^body\.rows\[0\](\.n)?: /),
      ),
    ),
  fc
    .constantFrom(
      '{"rows":[{"a":1,}]}',
      '{"rows":[{"a" 1}]}',
      "{'rows':[]}",
      '{"rows":[{"a":"\t"}]}',
    )
    .map((body) => http('bad JSON', { body }, invalid(/^body/))),
);

const wrongTypes = fc.constantFrom<Case>(
  http('rows not an array', { body: '{"rows":{"a":1}}' }, invalid(/^body\.rows: /)),
  http('a row not an object', { body: '{"rows":[{"a":1},[1]]}' }, invalid(/^body\.rows\[1\]: /)),
  http('key not a string', { body: '{"key":7,"rows":[{"a":1}]}' }, invalid(/^body\.key: /)),
  http(
    'a key value that is an object',
    { body: '{"key":"id","rows":[{"id":{"x":1}}]}' },
    invalid(/^body\.rows\[0\]\.id: /),
  ),
  http(
    '$delete without a key',
    { body: '{"rows":[{"id":1,"$delete":true}]}' },
    invalid(/^body\.rows\[0\]\.\$delete: /),
  ),
  http('an unknown member', { body: '{"rows":[{}],"shard":"x"}' }, invalid(/^body/)),
  sqs('a shard that is a number', '{"shard":7,"rows":[{"a":1}]}', invalid(/^body\.shard: /)),
  sqs('no shard', '{"rows":[{"a":1}]}', invalid(/^body\.shard: /)),
  sqs(
    'an SNS subscription confirmation',
    '{"Type":"SubscriptionConfirmation","TopicArn":"t","MessageId":"m","Message":"x"}',
    invalid(/^body\.Type: /),
  ),
);

const oversize = fc.oneof(
  fc
    .integer({ min: LIMITS.maxRowsPerPut + 1, max: 20 })
    .map((n) =>
      http(
        `${n} rows`,
        { body: `{"rows":[${Array(n).fill('{}').join(',')}]}` },
        invalid(/^body\.rows: /),
      ),
    ),
  fc
    .integer({ min: 100, max: 400 })
    .map((levels) =>
      http(
        `a row nested ${levels + 1} deep`,
        { body: `{"rows":[{"deep":${deepValue(levels).tokens.join('')}}]}` },
        invalid(/^body\.rows\[0\]: nested deeper than 100 levels/),
      ),
    ),
  fc.integer({ min: 1, max: 4096 }).map((extra) =>
    http(
      'a body over the limit as sent',
      { body: `{"rows":[{"s":"${'x'.repeat(LIMITS.maxBodyBytes + extra)}"}]}` },
      {
        status: 413,
        kind: ErrorKind.tooLarge,
        names: /^body: expected at most 16384 bytes \(SHARDWAL_MAX_BODY_BYTES\)/,
      },
    ),
  ),
  fc.integer({ min: 2, max: 12 }).map((mib) =>
    http(
      `a gzip bomb of ${mib} MiB`,
      base64(gzipSync(Buffer.alloc(mib * 1024 * 1024, 0x20)), { 'content-encoding': 'gzip' }),
      {
        status: 413,
        kind: ErrorKind.tooLarge,
        names:
          /^body after Content-Encoding gzip: expected at most 32768 bytes \(SHARDWAL_MAX_DECODED_BODY_BYTES\), got more than 32768$/,
      },
    ),
  ),
  fc
    .integer({ min: 1025, max: 2000 })
    .map((n) =>
      sqs(
        'a key value past 1024 characters',
        `{"shard":"${SHARD}","key":"id","rows":[{"id":"${'k'.repeat(n)}"}]}`,
        invalid(/^body\.rows\[0\]\.id: /),
      ),
    ),
);

const unsupported = fc.oneof(
  fc
    .constantFrom(
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/json; charset=iso-8859-1',
      'application/xml',
      'multipart/form-data; boundary=b',
      'application/json; charset=utf-16',
    )
    .map((type) =>
      http(
        `Content-Type ${type}`,
        { body: '{"rows":[{"a":1}]}', headers: { 'content-type': type } },
        {
          status: 415,
          kind: ErrorKind.unsupportedMediaType,
          names: /^Content-Type: /,
        },
      ),
    ),
  fc.constantFrom('br', 'deflate', 'compress', 'zstd').map((coding) =>
    http(
      `Content-Encoding ${coding}`,
      base64(Buffer.from('{"rows":[{"a":1}]}'), { 'content-encoding': coding }),
      {
        status: 415,
        kind: ErrorKind.unsupportedMediaType,
        names: /^Content-Encoding: /,
      },
    ),
  ),
);

/** The same key first with one payload, then (refused) with another. */
const reusedKey = fc
  .tuple(validBody, validBody, fc.boolean())
  .filter(([a, b]) => a !== b)
  .map(([first, second, overSqs]): Case => {
    const key = `reused-${++used}`;
    if (overSqs) {
      const attributes = {
        IdempotencyKey: {
          dataType: 'String',
          stringValue: key,
          stringListValues: [],
          binaryListValues: [],
        },
      } as SQSRecord['messageAttributes'];
      const asMessage = (body: string) => `{"shard":"${SHARD}",${body.trim().slice(1)}`;
      return {
        transport: 'sqs',
        label: 'a key reused with another payload',
        before: asMessage(first),
        body: asMessage(second),
        attributes,
        expected: {
          status: 422,
          kind: ErrorKind.keyReused,
          names: new RegExp(`^Idempotency-Key ${key}: `),
        },
      };
    }
    return {
      transport: 'http',
      label: 'a key reused with another payload',
      before: { body: first, headers: { 'idempotency-key': key } },
      changes: { body: second, headers: { 'idempotency-key': key } },
      expected: {
        status: 422,
        kind: ErrorKind.keyReused,
        names: new RegExp(`^Idempotency-Key ${key}: `),
      },
    };
  });

const binaryKey = fc.tuple(validMessage, fc.integer({ min: 190, max: 256 })).map(
  ([body, bytes]): Case => ({
    transport: 'sqs',
    label: `a Binary key of ${bytes} bytes`,
    body,
    attributes: {
      IdempotencyKey: {
        dataType: 'Binary',
        binaryValue: Buffer.alloc(bytes, 1).toString('base64'),
        stringListValues: [],
        binaryListValues: [],
      },
    },
    expected: invalid(/^messageAttributes\.IdempotencyKey: a Binary key of \d+ bytes is too long/),
  }),
);

const anyInvalid: fc.Arbitrary<Case> = fc.oneof(
  badUtf8,
  loneSurrogate,
  rawLoneSurrogate,
  duplicateMember,
  badJson,
  wrongTypes,
  oversize,
  unsupported,
  reusedKey,
  binaryKey,
);

function putHttp(changes: HttpEventChanges) {
  return handlePut(
    httpEvent(EventFile.apiPut, {
      query: null,
      headers: { 'idempotency-key': undefined },
      ...changes,
    }),
    f.put,
  );
}

async function putSqs(body: string, attributes: SQSRecord['messageAttributes'] = {}) {
  const record = withRecord(sample(SqsSample.standardBatch).Records[1]!, {
    messageId: `m-${++used}`,
    body,
    messageAttributes: attributes,
  });
  return handlePutMessages({ Records: [record] }, lambdaContext(), f.put, queues);
}

describe('the put path', () => {
  it('refuses every invalid put with a 4xx naming the problem, and stores nothing', async () => {
    await fc.assert(
      fc.asyncProperty(anyInvalid, async (c) => {
        if (c.transport === 'http') {
          if (c.before) expect((await putHttp(c.before)).statusCode).toBe(202);
          const sealed = { sealedSeqs: c.expected.kind === ErrorKind.keyReused };
          const before = await storedState(f, sealed);
          const result = await putHttp(c.changes);
          const { error } = bodyOf<{ error: { kind: string; message: string } }>(result);
          expect({ status: result.statusCode, kind: error.kind }, c.label).toEqual({
            status: c.expected.status,
            kind: c.expected.kind,
          });
          expect(error.message, c.label).toMatch(c.expected.names);
          expect(await storedState(f, sealed), c.label).toBe(before);
        } else {
          if (c.before)
            expect((await putSqs(c.before, c.attributes)).batchItemFailures).toEqual([]);
          const sealed = { sealedSeqs: c.expected.kind === ErrorKind.keyReused };
          const before = await storedState(f, sealed);
          const dead = queues.deadLettered.length;
          const response = await putSqs(c.body, c.attributes);
          // Refused for good: dead-lettered with the reason, reported done, never retried.
          expect(response.batchItemFailures, c.label).toEqual([]);
          expect(queues.deadLettered.length, c.label).toBe(dead + 1);
          const { reason } = queues.deadLettered.at(-1)!;
          expect(reason.kind, c.label).toBe(c.expected.kind);
          expect(reason.message, c.label).toMatch(c.expected.names);
          expect(await storedState(f, sealed), c.label).toBe(before);
        }
      }),
      { seed: 8_2026, numRuns: 150 },
    );
    expect(queues.heldBack).toEqual([]);
  }, 180_000);
});
