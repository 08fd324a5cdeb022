import {
  type AttributeValue,
  BatchWriteItemCommand,
  CreateTableCommand,
  DescribeTimeToLiveCommand,
  GetItemCommand,
  ListTablesCommand,
  PutItemCommand,
  QueryCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { MemoryDynamoDB, type MemoryDynamoDBOptions } from './memory-dynamodb.js';
import { errorOf, get, key, memoryTable, TABLE, update } from './semantics-support.js';

describe('MemoryDynamoDB', () => {
  describe('Query', () => {
    async function filled(options: MemoryDynamoDBOptions, count: number) {
      const db = await memoryTable(options);
      for (let i = 0; i < count; i++) {
        const sk = `batch#${String(i).padStart(4, '0')}`;
        await db.send(
          new PutItemCommand({
            TableName: TABLE,
            Item: { ...key(sk), data: { B: new Uint8Array(1000) } },
          }),
        );
      }
      return db;
    }

    async function allPages(db: MemoryDynamoDB, forward = true) {
      const pages: string[][] = [];
      let start: Record<string, AttributeValue> | undefined;
      do {
        const out = await db.send(
          new QueryCommand({
            TableName: TABLE,
            KeyConditionExpression: 'pk = :p AND begins_with(sk, :b)',
            ExpressionAttributeValues: { ':p': { S: 'p' }, ':b': { S: 'batch#' } },
            ExclusiveStartKey: start,
            ScanIndexForward: forward,
          }),
        );
        pages.push(out.Items.map((item: Record<string, AttributeValue>) => item.sk?.S));
        start = out.LastEvaluatedKey;
      } while (start);
      return pages;
    }

    it('pages through a partition maxPageItems at a time, every item once, either way', async () => {
      const db = await filled({ maxPageItems: 3 }, 7);
      const forward = await allPages(db);
      expect(forward.map((page) => page.length)).toEqual([3, 3, 1]);
      expect(forward.flat()).toEqual(
        Array.from({ length: 7 }, (_, i) => `batch#${String(i).padStart(4, '0')}`),
      );
      expect((await allPages(db, false)).flat()).toEqual(forward.flat().reverse());
    });

    it('ends a page once it holds maxPageBytes', async () => {
      const db = await filled({ maxPageBytes: 2500 }, 5);
      // Each item is about 1 KB: the third one crosses 2500 bytes and ends the page.
      expect((await allPages(db)).map((page) => page.length)).toEqual([3, 2]);
    });

    it('keeps the sparse index in step with the items that carry its keys', async () => {
      const db = await memoryTable();
      const pending = async () =>
        (
          await db.send(
            new QueryCommand({
              TableName: TABLE,
              IndexName: 'pending',
              KeyConditionExpression: 'pendingPk = :p',
              ExpressionAttributeValues: { ':p': { S: 'pending' } },
            }),
          )
        ).Items;
      const mark = (sk: string) =>
        db.send(
          update(sk, 'SET pendingPk = :p, pendingShard = :s, kind = :p', {
            ':p': { S: 'pending' },
            ':s': { S: sk },
          }),
        );
      await db.send(new PutItemCommand({ TableName: TABLE, Item: key('unmarked') }));
      await mark('b');
      await mark('a');
      // KEYS_ONLY: table and index keys, nothing else; ordered by the index range key.
      expect(await pending()).toEqual([
        { ...key('a'), pendingPk: { S: 'pending' }, pendingShard: { S: 'a' } },
        { ...key('b'), pendingPk: { S: 'pending' }, pendingShard: { S: 'b' } },
      ]);
      await db.send(update('a', 'REMOVE pendingPk, pendingShard'));
      expect((await pending()).map((item: Record<string, AttributeValue>) => item.sk?.S)).toEqual([
        'b',
      ]);
    });

    it('returns whole items from an index that projects ALL', async () => {
      const db = new MemoryDynamoDB();
      await db.send(
        new CreateTableCommand({
          TableName: 'all',
          AttributeDefinitions: [
            { AttributeName: 'id', AttributeType: 'S' },
            { AttributeName: 'g', AttributeType: 'N' },
          ],
          KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
          GlobalSecondaryIndexes: [
            {
              IndexName: 'byG',
              KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' }],
              Projection: { ProjectionType: 'ALL' },
            },
          ],
        }),
      );
      const Item = { id: { S: 'x' }, g: { N: '1' }, extra: { S: 'kept' } };
      await db.send(new PutItemCommand({ TableName: 'all', Item }));
      const out = await db.send(
        new QueryCommand({
          TableName: 'all',
          IndexName: 'byG',
          KeyConditionExpression: 'g = :g',
          ExpressionAttributeValues: { ':g': { N: '1.0' } },
        }),
      );
      expect(out.Items).toEqual([Item]);
    });

    it('refuses a strongly consistent read of a global secondary index', async () => {
      const db = await memoryTable();
      const error = await errorOf(
        db.send(
          new QueryCommand({
            TableName: TABLE,
            IndexName: 'pending',
            KeyConditionExpression: 'pendingPk = :p',
            ExpressionAttributeValues: { ':p': { S: 'pending' } },
            ConsistentRead: true,
          }),
        ),
      );
      expect(error.message).toBe('Consistent reads are not supported on global secondary indexes');
    });
  });

  describe('BatchWriteItem', () => {
    it('refuses duplicate keys and applies nothing of the batch', async () => {
      const db = await memoryTable();
      const request = { PutRequest: { Item: key('a') } };
      const error = await errorOf(
        db.send(new BatchWriteItemCommand({ RequestItems: { [TABLE]: [request, request] } })),
      );
      expect(error.message).toBe('Provided list of item keys contains duplicates');
      expect(await get(db, 'a')).toBeUndefined();
    });

    it('refuses more than 25 requests', async () => {
      const db = await memoryTable();
      const requests = Array.from({ length: 26 }, (_, i) => ({
        DeleteRequest: { Key: key(String(i)) },
      }));
      const error = await errorOf(
        db.send(new BatchWriteItemCommand({ RequestItems: { [TABLE]: requests } })),
      );
      expect(error.message).toBe('Too many items requested for the BatchWriteItem call');
    });
  });

  describe('TimeToLive', () => {
    it('records the setting and deletes expired items only when expireTtl runs', async () => {
      const db = await memoryTable();
      await db.send(
        new UpdateTimeToLiveCommand({
          TableName: TABLE,
          TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
        }),
      );
      expect(
        (await db.send(new DescribeTimeToLiveCommand({ TableName: TABLE }))).TimeToLiveDescription,
      ).toEqual({
        TimeToLiveStatus: 'ENABLED',
        AttributeName: 'expiresAt',
      });
      await db.send(
        new PutItemCommand({ TableName: TABLE, Item: { ...key('old'), expiresAt: { N: '100' } } }),
      );
      await db.send(
        new PutItemCommand({ TableName: TABLE, Item: { ...key('new'), expiresAt: { N: '300' } } }),
      );
      expect(await get(db, 'old')).toBeDefined();
      expect(db.expireTtl(TABLE, 200)).toBe(1);
      expect(await get(db, 'old')).toBeUndefined();
      expect(await get(db, 'new')).toBeDefined();
    });
  });

  describe('send', () => {
    it('throws ResourceNotFoundException for an unknown table', async () => {
      const db = await memoryTable();
      const error = await errorOf(
        db.send(new GetItemCommand({ TableName: 'nope', Key: key('a') })),
      );
      expect(error).toEqual({
        name: 'ResourceNotFoundException',
        message: 'Requested resource not found',
        status: 400,
      });
    });

    it('throws UnknownOperationException for a command it does not model', async () => {
      const db = await memoryTable();
      const error = await errorOf(db.send(new ListTablesCommand({})));
      expect(error).toMatchObject({ name: 'UnknownOperationException', status: 400 });
    });

    it('refuses a parameter it does not model rather than ignoring it', async () => {
      const db = await memoryTable();
      const put = new PutItemCommand({
        TableName: TABLE,
        Item: key('a'),
        ReturnConsumedCapacity: 'TOTAL',
      });
      const error = await errorOf(db.send(put));
      expect(error).toMatchObject({
        name: 'ValidationException',
        message: 'MemoryDynamoDB does not model ReturnConsumedCapacity=TOTAL',
      });
      expect(await get(db, 'a')).toBeUndefined();
    });

    it('applies concurrent requests in the order beforeApply releases them', async () => {
      const parked: (() => void)[] = [];
      const db = await memoryTable({
        beforeApply: (_command, info) => {
          // Park the first write until the second one has applied.
          if (info.operation === 'UpdateItem' && parked.length === 0) {
            return new Promise<void>((resolve) => parked.push(resolve));
          }
        },
        afterApply: () => {
          parked.shift()?.();
        },
      });
      const first = db.send(update('a', 'SET v = :v', { ':v': { S: 'first' } }));
      const second = db.send(update('a', 'SET v = :v', { ':v': { S: 'second' } }));
      await Promise.all([first, second]);
      expect((await get(db, 'a'))?.v).toEqual({ S: 'first' });
    });

    it('lets afterApply lose the response of a write that landed', async () => {
      const db = await memoryTable({
        afterApply: (_command, info) => {
          if (info.operation === 'PutItem') throw new Error('connection reset');
        },
      });
      await expect(
        db.send(new PutItemCommand({ TableName: TABLE, Item: key('a') })),
      ).rejects.toThrow('connection reset');
      expect(await get(db, 'a')).toEqual(key('a'));
    });
  });
});
