import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTable } from '../../lib/memtable/create-table.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';

// An emulator that keeps new tables CREATING for a while, as DynamoDB does.
const server = dynalite({ createTableMs: 150 });
let client: DynamoDBClient;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  client = new DynamoDBClient({
    endpoint: `http://127.0.0.1:${port}`,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
});

afterAll(async () => {
  client.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('ensureTable', () => {
  describe('with a table still being created', () => {
    it('returns only once the table accepts item requests', async () => {
      const table = { client, tableName: 'slow-table' };
      await ensureTable(table);
      // The flusher's first request: refused with ResourceNotFound while the table is CREATING.
      expect(await readShardRecord(table, 'any')).toBeUndefined();
      // Idempotent on an existing table.
      await ensureTable(table);
    });
  });
});
