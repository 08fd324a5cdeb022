import { type AttributeValue, PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { errorOf, get, key, memoryTable, TABLE, update } from './semantics-support.js';

describe('MemoryDynamoDB', () => {
  describe('UpdateItem', () => {
    it('evaluates right-hand attribute references against the item as it was', async () => {
      const db = await memoryTable();
      await db.send(
        update('a', 'SET x = :one, y = :two', { ':one': { N: '1' }, ':two': { N: '2' } }),
      );
      const out = await db.send(update('a', 'SET x = y, y = x, z = x + y'));
      expect(out.Attributes).toMatchObject({ x: { N: '2' }, y: { N: '1' }, z: { N: '3' } });
    });

    it('counts with if_not_exists from a missing attribute, then from the stored one', async () => {
      const db = await memoryTable();
      const allocate = update('a', 'SET nextSeq = if_not_exists(nextSeq, :one) + :one', {
        ':one': { N: '1' },
      });
      expect((await db.send(allocate)).Attributes.nextSeq).toEqual({ N: '2' });
      expect((await db.send(allocate)).Attributes.nextSeq).toEqual({ N: '3' });
    });

    it('adds and subtracts exactly past double precision', async () => {
      const db = await memoryTable();
      const values = {
        ':big': { N: '12345678901234567890' },
        ':one': { N: '1' },
        ':a': { N: '0.1' },
        ':b': { N: '0.2' },
      };
      const out = await db.send(
        update('a', 'SET big = :big + :one, small = :a + :b, neg = :a - :big', values),
      );
      expect(out.Attributes).toMatchObject({
        big: { N: '12345678901234567891' },
        small: { N: '0.3' },
        neg: { N: '-12345678901234567889.9' },
      });
    });

    it('refuses a result of more than 38 significant digits instead of rounding it', async () => {
      const db = await memoryTable();
      const values = { ':big': { N: '1'.repeat(38) }, ':tiny': { N: '0.1' } };
      const error = await errorOf(db.send(update('a', 'SET n = :big + :tiny', values)));
      expect(error).toMatchObject({ name: 'ValidationException', status: 400 });
      expect(await get(db, 'a')).toBeUndefined();
    });

    it('creates no item when a REMOVE-only update meets a missing item', async () => {
      const db = await memoryTable();
      const out = await db.send(update('a', 'REMOVE x'));
      expect(out.Attributes).toBeUndefined();
      expect(await get(db, 'a')).toBeUndefined();
    });

    it('returns the old, new or updated attributes that ReturnValues asks for', async () => {
      const db = await memoryTable();
      await db.send(update('a', 'SET x = :one, y = :one', { ':one': { N: '1' } }));
      const run = async (ReturnValues: string) =>
        (await db.send(update('a', 'ADD x :one', { ':one': { N: '1' } }, { ReturnValues })))
          .Attributes;
      expect(await run('NONE')).toBeUndefined();
      expect(await run('ALL_OLD')).toEqual({ ...key('a'), x: { N: '2' }, y: { N: '1' } });
      expect(await run('UPDATED_OLD')).toEqual({ x: { N: '3' } });
      expect(await run('UPDATED_NEW')).toEqual({ x: { N: '5' } });
      expect(await run('ALL_NEW')).toEqual({ ...key('a'), x: { N: '6' }, y: { N: '1' } });
    });

    it('refuses to update a key attribute', async () => {
      const db = await memoryTable();
      const error = await errorOf(db.send(update('a', 'SET sk = :v', { ':v': { S: 'b' } })));
      expect(error.message).toMatch(/Cannot update attribute sk/);
    });

    it('appends to lists and sets, and removes list elements by index', async () => {
      const db = await memoryTable();
      await db.send(
        update('a', 'SET l = :l, s = :s', {
          ':l': { L: [{ N: '1' }, { N: '2' }] },
          ':s': { SS: ['x'] },
        }),
      );
      const out = await db.send(
        update('a', 'SET l = list_append(l, :more) ADD s :y', {
          ':more': { L: [{ N: '3' }] },
          ':y': { SS: ['y', 'x'] },
        }),
      );
      expect(out.Attributes).toMatchObject({
        l: { L: [{ N: '1' }, { N: '2' }, { N: '3' }] },
        s: { SS: ['x', 'y'] },
      });
      const removed = await db.send(
        update('a', 'REMOVE l[0] DELETE s :x', { ':x': { SS: ['x', 'y'] } }),
      );
      expect(removed.Attributes.l).toEqual({ L: [{ N: '2' }, { N: '3' }] });
      expect(removed.Attributes.s).toBeUndefined();
    });
  });

  describe('PutItem', () => {
    it('stores numbers in the canonical form DynamoDB returns', async () => {
      const db = await memoryTable();
      const Item = {
        ...key('a'),
        a: { N: '1.50' },
        b: { N: '1e3' },
        c: { N: '-0' },
        d: { N: '007' },
        e: { NS: ['2.0', '1'] },
      };
      await db.send(new PutItemCommand({ TableName: TABLE, Item }));
      expect(await get(db, 'a')).toMatchObject({
        a: { N: '1.5' },
        b: { N: '1000' },
        c: { N: '0' },
        d: { N: '7' },
        e: { NS: ['2', '1'] },
      });
    });

    it('keeps what it stored when the caller mutates its input or the items it got back', async () => {
      const db = await memoryTable();
      const item = { ...key('a'), m: { M: { n: { N: '1' } } }, b: { B: Uint8Array.of(1, 2) } };
      await db.send(new PutItemCommand({ TableName: TABLE, Item: item }));
      item.m.M.n.N = '99';
      item.b.B[0] = 9;
      const read = (await get(db, 'a'))!;
      read.m!.M!.n = { N: '42' };
      read.b!.B![1] = 7;
      expect(await get(db, 'a')).toEqual({
        ...key('a'),
        m: { M: { n: { N: '1' } } },
        b: { B: Uint8Array.of(1, 2) },
      });
    });

    it('fails its condition with a 400 ConditionalCheckFailedException carrying the old item when asked', async () => {
      const db = await memoryTable();
      await db.send(new PutItemCommand({ TableName: TABLE, Item: { ...key('a'), v: { N: '1' } } }));
      const attempt = db.send(
        new PutItemCommand({
          TableName: TABLE,
          Item: { ...key('a'), v: { N: '2' } },
          ConditionExpression: 'attribute_not_exists(pk)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      await expect(attempt).rejects.toMatchObject({
        name: 'ConditionalCheckFailedException',
        $metadata: { httpStatusCode: 400 },
        Item: { ...key('a'), v: { N: '1' } },
      });
      expect((await get(db, 'a'))?.v).toEqual({ N: '1' });
    });

    it('treats empty strings and binaries as present values', async () => {
      const db = await memoryTable();
      await db.send(
        new PutItemCommand({
          TableName: TABLE,
          Item: { ...key('a'), s: { S: '' }, b: { B: new Uint8Array() } },
        }),
      );
      const check = (condition: string, values?: Record<string, AttributeValue>) =>
        db.send(
          update(
            'a',
            'SET ok = :t',
            { ':t': { BOOL: true }, ...values },
            { ConditionExpression: condition },
          ),
        );
      await expect(check('attribute_exists(s) AND attribute_exists(b)')).resolves.toBeDefined();
      await expect(
        check('size(s) = :zero AND size(b) = :zero', { ':zero': { N: '0' } }),
      ).resolves.toBeDefined();
      await expect(
        check('attribute_type(s, :S) AND s IN (:e)', { ':S': { S: 'S' }, ':e': { S: '' } }),
      ).resolves.toBeDefined();
    });
  });

  describe('conditions', () => {
    it('orders strings by UTF-8 bytes, in conditions and in Query order alike', async () => {
      const db = await memoryTable();
      // UTF-16 code units put U+1F600 (a surrogate pair) before U+FFFF; UTF-8 bytes put it after.
      for (const sk of ['\u{1f600}', '\uffff']) {
        await db.send(new PutItemCommand({ TableName: TABLE, Item: { ...key(sk), v: { S: sk } } }));
      }
      const out = await db.send(
        new QueryCommand({
          TableName: TABLE,
          KeyConditionExpression: 'pk = :p',
          FilterExpression: 'v > :ffff OR v = :ffff',
          ExpressionAttributeValues: { ':p': { S: 'p' }, ':ffff': { S: '\uffff' } },
        }),
      );
      expect(out.Items.map((item: Record<string, AttributeValue>) => item.sk?.S)).toEqual([
        '\uffff',
        '\u{1f600}',
      ]);
    });

    it('holds no order between missing attributes, and <> true against one', async () => {
      const db = await memoryTable();
      await db.send(new PutItemCommand({ TableName: TABLE, Item: key('a') }));
      const check = (condition: string) =>
        db.send(
          update('a', 'SET ok = :t', { ':t': { BOOL: true } }, { ConditionExpression: condition }),
        );
      await expect(check('x >= y')).rejects.toMatchObject({
        name: 'ConditionalCheckFailedException',
      });
      await expect(check('x = y')).rejects.toMatchObject({
        name: 'ConditionalCheckFailedException',
      });
      await expect(check('x <> :t')).resolves.toBeDefined();
    });

    it.each([
      [
        'a placeholder that is not defined',
        'SET x = :nope',
        { ':one': { N: '1' } },
        /not defined; attribute value: :nope/,
      ],
      [
        'a value that is not used',
        'SET x = :one',
        { ':one': { N: '1' }, ':two': { N: '2' } },
        /unused in expressions: keys: \{:two\}/,
      ],
      [
        'a reserved word used bare',
        'SET state = :one',
        { ':one': { N: '1' } },
        /reserved keyword: state/,
      ],
      ['a syntax error', 'SET x = = :one', { ':one': { N: '1' } }, /Syntax error/],
      [
        'overlapping paths',
        'SET x = :one REMOVE x',
        { ':one': { N: '1' } },
        /Two document paths overlap/,
      ],
    ])('throws ValidationException for %s', async (_what, expression, values, message) => {
      const db = await memoryTable();
      const error = await errorOf(db.send(update('a', expression, values)));
      expect(error).toMatchObject({ name: 'ValidationException', status: 400 });
      expect(error.message).toMatch(message);
      expect(await get(db, 'a')).toBeUndefined();
    });
  });
});
