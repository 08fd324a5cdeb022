/**
 * The flusher writes WAL v3: each batch's payload exactly as the put
 * compressed it (no gunzip, no second gzip), framed with its seq, offset and
 * buffering time; spilled payloads and the first version's batches included.
 */

import { gzipSync } from 'node:zlib';
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { flushShard } from '../../lib/flush/flush-shard.js';
import { allocateSeq } from '../../lib/memtable/allocate.js';
import { readBatches } from '../../lib/memtable/read-batches.js';
import { batchSk, shardPk } from '../../lib/memtable/table.js';
import { walKey } from '../../lib/paths.js';
import { putRows } from '../../lib/put/put-rows.js';
import { parsePutValue } from '../../lib/put/schema.js';
import { decodeWal } from '../../lib/wal/decode.js';
import { fixture, useDynalite } from '../support/harness.js';
import { rowValue } from '../support/rows.js';

const dynalite = useDynalite();

describe('flushShard', () => {
  describe('writing WAL v3', () => {
    it('writes every batch payload as the put compressed it, and records its buffering time', async () => {
      const f = await fixture(dynalite(), { spillBytes: 2_000 });
      const big = Array.from({ length: 400 }, (_, i) => ({ i, pad: `${i}-${'x'.repeat(40)}` }));
      for (const rows of [[{ a: 1 }, { a: 2 }], big, [{ b: 3 }]]) {
        await putRows(f.put, {
          shard: 's1',
          body: parsePutValue({ rows }, 10_000),
          durability: 'buffered',
        });
        f.clock.advance(7);
      }
      const batches = await readBatches(f.table, {
        shard: 's1',
        fromSeq: 1,
        toSeq: 3,
        maxBytes: Number.MAX_SAFE_INTEGER,
      });
      expect(f.store.counts().putIfAbsent).toBe(1); // the spilled payload of the big batch

      expect(await flushShard(f.flushDeps('a'), 's1')).toMatchObject({
        status: 'flushed',
        rows: 403,
      });
      const bytes = Buffer.from((await f.memory.get(walKey('s1', 0)))!);
      for (const batch of batches) {
        if (batch.kind === 'rows') expect(bytes.indexOf(batch.payload)).toBeGreaterThan(0);
      }
      const object = decodeWal(walKey('s1', 0), bytes);
      const createdAt = new Map(batches.map((b) => [b.seq, b.createdAtMs]));
      for (const row of object.rows) expect(row.ingestedAtMs).toBe(createdAt.get(row.seq));
      expect(new Set(object.rows.map((r) => r.ingestedAtMs)).size).toBe(3);
      expect(object.rows.map((r) => rowValue(r))).toEqual([{ a: 1 }, { a: 2 }, ...big, { b: 3 }]);
    });

    it('re-encodes a batch of the first version (a gzip JSON array) into row lines', async () => {
      const f = await fixture(dynalite());
      const { seq } = await allocateSeq(f.table, {
        shard: 's1',
        bytes: 20,
        nowMs: f.clock.now(),
        maxBufferedBytes: 1_000_000,
        retryAfterSeconds: 1,
      });
      await f.table.client.send(
        new PutItemCommand({
          TableName: f.table.tableName,
          Item: {
            pk: { S: shardPk('s1') },
            sk: { S: batchSk(seq) },
            kind: { S: 'rows' },
            parts: { N: '1' },
            rowCount: { N: '2' },
            bytes: { N: '20' },
            createdAtMs: { N: String(f.clock.now()) },
            data: { B: gzipSync(JSON.stringify([{ key: 'k', row: { v: 1 } }, { row: { v: 2 } }])) },
          },
        }),
      );
      expect(await flushShard(f.flushDeps('a'), 's1')).toMatchObject({
        status: 'flushed',
        rows: 2,
      });
      const object = decodeWal(walKey('s1', 0), (await f.memory.get(walKey('s1', 0)))!);
      expect(object.rows).toEqual([
        { seq, offset: 0, key: '"k"', text: '{"v":1}', ingestedAtMs: f.clock.now() },
        { seq, offset: 1, text: '{"v":2}', ingestedAtMs: f.clock.now() },
      ]);
    });
  });
});
