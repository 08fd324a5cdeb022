/**
 * The client's hand-written contract against `docs/openapi.yaml` and the
 * service's own constants: response field tables, error kinds and their
 * statuses, the Idempotency-Key pattern, the SQS key attribute.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  type FieldSpec,
  NDJSON_MEDIA_TYPES,
  PUT_ACK_FIELDS,
  type PutAck,
  PutBodyForm,
  type PutQuery,
  SEQ_STATUS_FIELDS,
  type SeqStatus,
  SHARD_STATUS_FIELDS,
  type ShardStatus,
} from '../../lib/client/api-types.js';
import { checkFields } from '../../lib/client/check-fields.js';
import { kindOfStatus, RETRY_RULE_OF_KIND, STATUS_OF_KIND } from '../../lib/client/error-kinds.js';
import { MalformedResponseError } from '../../lib/client/errors.js';
import { IDEMPOTENCY_KEY_PATTERN } from '../../lib/client/http-client.js';
import { IDEMPOTENCY_ATTRIBUTE } from '../../lib/client/sqs-message.js';
import { ErrorKind } from '../../lib/errors.js';
import { NDJSON_SUBTYPES } from '../../lib/http/media-type.js';
import type { BodyQuery } from '../../lib/http/put-body-shape.js';
import { BodyForm } from '../../lib/json/exact-put-body.js';
import { IDEMPOTENCY_ATTRIBUTE as SERVICE_IDEMPOTENCY_ATTRIBUTE } from '../../lib/sqs/put-messages.js';
import { schemaProperties, schemaRequired, yamlBlock } from './openapi-reader.js';

function asSpec(fields: Readonly<Record<string, FieldSpec>>) {
  return Object.fromEntries(
    Object.entries(fields).map(([name, spec]) => [
      name,
      typeof spec.type === 'string' ? [spec.type] : [...spec.type].sort(),
    ]),
  );
}

function requiredOf(fields: Readonly<Record<string, FieldSpec>>): string[] {
  return Object.entries(fields)
    .filter(([, spec]) => spec.required)
    .map(([name]) => name)
    .sort();
}

const TABLES = [
  ['PutAck', PUT_ACK_FIELDS],
  ['ShardStatus', SHARD_STATUS_FIELDS],
  ['SeqStatus', SEQ_STATUS_FIELDS],
] as const;

describe('client API types', () => {
  describe.each(TABLES)('%s', (schema, fields) => {
    it('has exactly the properties and JSON types of the spec', () => {
      const documented = Object.fromEntries(
        Object.entries(schemaProperties(schema)).map(([name, types]) => [name, [...types].sort()]),
      );
      expect(asSpec(fields)).toEqual(documented);
    });

    it('requires exactly what the spec requires', () => {
      expect(requiredOf(fields)).toEqual([...schemaRequired(schema)].sort());
    });
  });

  it('has TypeScript types with the same fields as the tables', () => {
    expectTypeOf<keyof PutAck>().toEqualTypeOf<keyof typeof PUT_ACK_FIELDS>();
    expectTypeOf<keyof ShardStatus>().toEqualTypeOf<keyof typeof SHARD_STATUS_FIELDS>();
    expectTypeOf<keyof SeqStatus>().toEqualTypeOf<keyof typeof SEQ_STATUS_FIELDS>();
  });

  describe('put request', () => {
    it('names the body forms, NDJSON media types and query parameters the route reads', () => {
      expect(Object.values(PutBodyForm)).toEqual(Object.values(BodyForm));
      expect([...NDJSON_MEDIA_TYPES]).toEqual(
        NDJSON_SUBTYPES.map((subtype) => `application/${subtype}`),
      );
      expectTypeOf<Exclude<keyof PutQuery, 'durability'>>().toEqualTypeOf<
        (typeof BodyQuery)[keyof typeof BodyQuery]
      >();
    });
  });

  describe('checkFields', () => {
    it('accepts the spec example ack and keeps fields the spec may add later', () => {
      const ack = { shard: 'orders', seq: 42, rows: 2, durable: true, region: 'eu' };
      expect(checkFields<PutAck>(ack, PUT_ACK_FIELDS, 'ack')).toEqual(ack);
    });

    it('refuses a missing field, a wrong type and a non-integer', () => {
      const cases: Array<[unknown, RegExp]> = [
        [{ shard: 'o', seq: 1, rows: 1 }, /missing field durable/],
        [{ shard: 'o', seq: 1, rows: 1, durable: 'yes' }, /field durable: expected boolean/],
        [{ shard: 'o', seq: 1.5, rows: 1, durable: true }, /field seq: expected integer/],
        [[1], /expected a JSON object/],
      ];
      for (const [value, message] of cases) {
        expect(() => checkFields(value, PUT_ACK_FIELDS, 'ack')).toThrow(MalformedResponseError);
        expect(() => checkFields(value, PUT_ACK_FIELDS, 'ack')).toThrow(message);
      }
    });

    it('takes null where the spec allows it and refuses it elsewhere', () => {
      const status = {
        shard: 'o',
        seq: 1,
        state: 'pending',
        durable: false,
        durableSeq: 0,
        poison: null,
      };
      expect(checkFields(status, SEQ_STATUS_FIELDS, 'seq')).toEqual(status);
      expect(() => checkFields({ ...status, durableSeq: null }, SEQ_STATUS_FIELDS, 'seq')).toThrow(
        /durableSeq/,
      );
    });
  });

  describe('error kinds', () => {
    it('lists every kind of the spec with the status the service answers', () => {
      const listed = yamlBlock('components', 'schemas', 'ErrorKind', 'enum')
        .filter((line) => /^\s*- /.test(line))
        .map((line) => line.trim().slice(2));
      expect(Object.keys(STATUS_OF_KIND).sort()).toEqual([...listed].sort());
      const description = yamlBlock('components', 'schemas', 'ErrorKind', 'description').join(' ');
      for (const [kind, status] of Object.entries(STATUS_OF_KIND)) {
        expect(description).toContain(`${kind} ${status}`);
      }
    });

    it('finds a kind from a status only when the status has one kind', () => {
      expect(kindOfStatus(429)).toBe(ErrorKind.backpressure);
      expect(kindOfStatus(422)).toBe(ErrorKind.keyReused);
      expect(kindOfStatus(409)).toBeUndefined();
      expect(kindOfStatus(503)).toBeUndefined();
    });
  });

  it('documents every kind’s status and retry rule in docs/client.md', () => {
    const doc = readFileSync(new URL('../../docs/client.md', import.meta.url), 'utf8');
    const rows = new Map(
      [...doc.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \| ([a-z-]+)/gm)].map((m) => [
        m[1],
        [Number(m[2]), m[3]],
      ]),
    );
    expect([...rows.keys()].sort()).toEqual(Object.keys(STATUS_OF_KIND).sort());
    for (const [kind, status] of Object.entries(STATUS_OF_KIND)) {
      expect(rows.get(kind), kind).toEqual([status, RETRY_RULE_OF_KIND[kind as ErrorKind]]);
    }
  });

  it('uses the spec’s Idempotency-Key pattern and the SQS handler’s attribute name', () => {
    const schema = yamlBlock('components', 'parameters', 'IdempotencyKey', 'schema').join('\n');
    expect(schema).toContain(`pattern: '${IDEMPOTENCY_KEY_PATTERN.source}'`);
    expect(IDEMPOTENCY_ATTRIBUTE).toBe(SERVICE_IDEMPOTENCY_ATTRIBUTE);
  });
});
