import { describe, expect, it } from 'vitest';
import { ErrorKind } from '../../lib/errors.js';
import { handlePut } from '../../lib/http/put-route.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { bodyOf, EventFile, type HttpEventChanges, httpEvent } from '../support/events.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';

const dynalite = useDynalite();

function put(f: Fixture, changes: HttpEventChanges) {
  return handlePut(httpEvent(EventFile.apiPut, changes), f.put);
}

async function expectInvalid(f: Fixture, changes: HttpEventChanges, field: string) {
  const result = await put(f, changes);
  expect(result.statusCode, JSON.stringify(changes)).toBe(400);
  expect(result.headers?.['content-type']).toBe('application/json');
  const { error } = bodyOf<{ error: { kind: string; message: string } }>(result);
  expect(error.kind).toBe(ErrorKind.invalidInput);
  expect(error.message.startsWith(`${field}: `), error.message).toBe(true);
}

describe('handlePut', () => {
  it('acks the sample event 202 {shard, seq, rows, durable:false} as JSON', async () => {
    const f = await fixture(dynalite());
    const result = await handlePut(httpEvent(EventFile.apiPut), f.put);
    expect(result.statusCode).toBe(202);
    expect(result.headers).toEqual({ 'content-type': 'application/json' });
    expect(bodyOf(result)).toEqual({ shard: 'orders', seq: 1, rows: 2, durable: false });
  });

  it('assigns consecutive seqs per shard and treats a missing durability as buffered', async () => {
    const f = await fixture(dynalite());
    const seqs: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      const result = await put(f, { query: null, headers: { 'idempotency-key': `k${i}` } });
      expect(result.statusCode).toBe(202);
      seqs.push(bodyOf(result).seq);
    }
    expect(seqs).toEqual([1, 2, 3]);
  });

  it('reads a base64-encoded body', async () => {
    const f = await fixture(dynalite());
    const body = Buffer.from(JSON.stringify({ rows: [{ a: 1 }] })).toString('base64');
    const result = await put(f, { body, isBase64Encoded: true });
    expect(result.statusCode).toBe(202);
    expect(bodyOf(result)).toMatchObject({ rows: 1 });
  });

  it('finds the Idempotency-Key header whatever its case', async () => {
    const f = await fixture(dynalite());
    const headers = { 'idempotency-key': undefined, 'Idempotency-Key': 'mixed-case' };
    const first = await put(f, { headers });
    const repeat = await put(f, { headers });
    expect(repeat.body).toBe(first.body);
    // The repeat's own seq (2) is sealed void: nothing more is buffered.
    expect(await readShardRecord(f.table, 'orders')).toMatchObject({ nextSeq: 3 });
  });

  describe('400s name the field', () => {
    it.each([
      ['../x'],
      ['A'],
      ['x'.repeat(65)],
      [''],
      ['-leading-dash'],
      ['has space'],
      ['caf\u00e9'],
    ])('rejects shard name %j', async (shard) => {
      const f = await fixture(dynalite());
      await expectInvalid(f, { shard }, 'shard');
    });

    it('accepts a 64-character shard name', async () => {
      const f = await fixture(dynalite());
      expect((await put(f, { shard: 'a'.repeat(64) })).statusCode).toBe(202);
    });

    it.each<[string, HttpEventChanges, string]>([
      ['a non-JSON body', { body: 'rows=1' }, 'body'],
      ['a truncated JSON body', { body: '{"rows":[{"a":1}' }, 'body.rows'],
      ['no body', { body: null }, 'body'],
      ['a JSON string body', { body: '"rows"' }, 'body'],
      ['rows missing', { body: {} }, 'body.rows'],
      ['rows empty', { body: { rows: [] } }, 'body.rows'],
      ['rows not an array', { body: { rows: 'x' } }, 'body.rows'],
      ['a row that is not an object', { body: { rows: [{}, 42] } }, 'body.rows[1]'],
      ['a keyed row without its key', { body: { key: 'id', rows: [{ v: 1 }] } }, 'body.rows[0].id'],
      [
        '$delete without key',
        { body: { rows: [{ id: 1, $delete: true }] } },
        'body.rows[0].$delete',
      ],
      ['an unknown top-level field', { body: { rows: [{}], shard: 'x' } }, 'body'],
      ['a bad durability', { query: { durability: 'eventually' } }, 'durability'],
      ['an empty durability', { query: { durability: '' } }, 'durability'],
      [
        'a bad Idempotency-Key',
        { headers: { 'idempotency-key': 'has spaces' } },
        'Idempotency-Key',
      ],
      [
        'an overlong Idempotency-Key',
        { headers: { 'idempotency-key': 'k'.repeat(257) } },
        'Idempotency-Key',
      ],
    ])('rejects %s', async (_label, changes, field) => {
      const f = await fixture(dynalite());
      await expectInvalid(f, changes, field);
      expect(await readShardRecord(f.table, 'orders')).toBeUndefined();
    });

    it('rejects more rows than maxRowsPerPut', async () => {
      const f = await fixture(dynalite(), { maxRowsPerPut: 3 });
      await expectInvalid(f, { body: { rows: [{}, {}, {}, {}] } }, 'body.rows');
      expect((await put(f, { body: { rows: [{}, {}, {}] } })).statusCode).toBe(202);
    });
  });

  it('answers 413 to a body over maxBodyBytes, measured in bytes', async () => {
    const f = await fixture(dynalite(), { maxBodyBytes: 100 });
    const fits = { rows: [{ s: 'x'.repeat(70) }] };
    expect((await put(f, { body: fits })).statusCode).toBe(202);
    // 45 two-byte characters: under 100 characters, over 100 bytes.
    const over = { rows: [{ s: '\u00e9'.repeat(45) }] };
    const result = await put(f, { body: over, headers: { 'idempotency-key': 'other' } });
    expect(result.statusCode).toBe(413);
    expect(bodyOf(result)).toEqual({
      error: { kind: ErrorKind.tooLarge, message: expect.stringContaining('at most 100 bytes') },
    });
  });
});
