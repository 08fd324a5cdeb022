import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { validateSettings } from '../../lib/config.js';
import {
  CorruptDataError,
  InternalError,
  PutDeadlineError,
  UnavailableError,
} from '../../lib/errors.js';
import { flushShard } from '../../lib/flush/flush-shard.js';
import { respillAged } from '../../lib/memtable/batch-expiry.js';
import { readBatchHead } from '../../lib/memtable/batch-heads.js';
import { listRejectedBatches, quarantineBatch } from '../../lib/memtable/quarantine.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { payloadSpill, RESPILL_AGE_MS } from '../../lib/memtable/spill.js';
import { batchSk, shardPk, type Table } from '../../lib/memtable/table.js';
import { SPILL_PREFIX } from '../../lib/paths.js';
import { putRows } from '../../lib/put/put-rows.js';
import { parsePutValue } from '../../lib/put/schema.js';
import { seededRandom } from '../../lib/seeded-random.js';
import { FaultyObjectStore } from '../../lib/store/faulty-store.js';
import type { ObjectStore, PutIfAbsentResult } from '../../lib/store/object-store.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';
import { rowValue } from '../support/rows.js';
import { isBatchWrite, scriptedTable } from '../support/scripted-table.js';
import { drain, readWalChain } from '../support/wal-chain.js';

const dynalite = useDynalite();
const SHARD = 'big';

/** Rows that barely compress: `count` rows of `chars` random base-36 characters. */
function noisyRows(count: number, chars: number, seed: number) {
  const random = seededRandom(seed);
  return Array.from({ length: count }, (_, i) => {
    let text = '';
    while (text.length < chars) text += random().toString(36).slice(2);
    return { i, text: text.slice(0, chars) };
  });
}

async function put(f: Fixture, rows: object[], extra: { table?: Table; key?: string } = {}) {
  return putRows(
    { ...f.put, table: extra.table ?? f.table },
    {
      shard: SHARD,
      body: parsePutValue({ rows }, 10_000),
      durability: 'buffered',
      idempotencyKey: extra.key,
    },
  );
}

async function spillKeys(store: ObjectStore): Promise<string[]> {
  const keys: string[] = [];
  for await (const key of store.list(SPILL_PREFIX)) keys.push(key);
  return keys;
}

async function headItem(f: Fixture, seq: number) {
  const out = await f.table.client.send(
    new GetItemCommand({
      TableName: f.table.tableName,
      Key: { pk: { S: shardPk(SHARD) }, sk: { S: batchSk(seq) } },
      ConsistentRead: true,
    }),
  );
  return out.Item!;
}

async function walRows(f: Fixture): Promise<unknown[]> {
  return (await readWalChain(f.memory, SHARD)).flatMap((o) => o.rows.map((r) => rowValue(r)));
}

/** A table whose spills go to `store` (every payload spills). */
function spillingTo(f: Fixture, store: ObjectStore): Table {
  return { ...f.table, spill: { store: () => store, thresholdBytes: 0 } };
}

describe('payload spill', () => {
  describe('writeBatch', () => {
    it('writes a payload above the threshold to one object and keeps a pointer item; smaller ones stay inline', async () => {
      const f = await fixture(dynalite());
      const big = noisyRows(4, 5_000, 1); // ~20 KB of JSON, well above 8 KiB gzip'd
      const small = [{ n: 1 }, { n: 2 }];
      await put(f, big);
      const afterBig = f.store.counts().putIfAbsent;
      await put(f, small);
      expect(afterBig).toBe(1);
      expect(f.store.counts().putIfAbsent).toBe(1); // the small put made no S3 request

      const [key] = await spillKeys(f.memory);
      expect(key).toMatch(/^spill\/big\/0{19}1-[0-9a-f-]{36}$/);
      const spilled = await headItem(f, 1);
      expect(spilled.data).toBeUndefined();
      expect(spilled.spillKey).toEqual({ S: key });
      expect(Number(spilled.spillBytes!.N)).toBe((await f.memory.get(key!))!.length);
      expect(spilled.spillSha!.S).toMatch(/^[0-9a-f]{64}$/);
      expect((await headItem(f, 2)).data?.B).toBeDefined();

      await drain(f.flushDeps('drain'), SHARD);
      expect(await walRows(f)).toEqual([...big, ...small]);
      expect(f.store.counts().putIfAbsent).toBe(2); // the spill and one WAL object
    });

    it('spills nothing when spilling is off', async () => {
      const f = await fixture(dynalite(), { spillBytes: 'off' });
      await put(f, noisyRows(4, 5_000, 1));
      expect(f.store.counts().putIfAbsent).toBe(0);
      expect((await headItem(f, 1)).data?.B).toBeDefined();
    });

    it.each([
      ['fails before it is written', 'fail'],
      ['is written but its response is lost', 'lostAck'],
    ] as const)(
      'refuses the put and seals its seq when the spill write %s; the retry lands once',
      async (_label, fault) => {
        const f = await fixture(dynalite());
        const faulty = new FaultyObjectStore(f.memory, { script: { putIfAbsent: [fault] } });
        const table = spillingTo(f, faulty);
        const rows = [{ n: 1 }];
        await expect(put(f, rows, { table, key: 'k' })).rejects.toBeInstanceOf(UnavailableError);
        expect(await readBatchHead(f.table, SHARD, 1)).toMatchObject({ kind: 'void' });

        const retry = await put(f, rows, { table, key: 'k' });
        expect(retry).toMatchObject({ repeated: false, ack: { seq: 2 } });
        await drain(f.flushDeps('drain', { table }), SHARD);
        expect(await walRows(f)).toEqual(rows);
        // A lost ack leaves an object nothing points at: the lifecycle rule removes it.
        expect((await spillKeys(f.memory)).length).toBe(fault === 'lostAck' ? 2 : 1);
      },
    );

    it('confirms a head write whose response was lost as its own, with one spill object', async () => {
      const f = await fixture(dynalite());
      const scripted = scriptedTable(spillingTo(f, f.store));
      scripted.add({ match: isBatchWrite, effect: 'lose-response' });
      const result = await put(f, [{ n: 1 }], { table: scripted.table, key: 'k' });
      expect(result).toMatchObject({ repeated: false, ack: { seq: 1 } });
      expect(await spillKeys(f.memory)).toHaveLength(1);
      await drain(f.flushDeps('drain', { table: spillingTo(f, f.store) }), SHARD);
      expect(await walRows(f)).toEqual([{ n: 1 }]);
    });

    it('does not write the head once the deadline passed during a slow spill', async () => {
      const f = await fixture(dynalite());
      class SlowStore extends FaultyObjectStore {
        override async putIfAbsent(key: string, body: Uint8Array): Promise<PutIfAbsentResult> {
          f.clock.advance(f.config.putDeadlineMs + 1);
          return super.putIfAbsent(key, body);
        }
      }
      const table = spillingTo(f, new SlowStore(f.memory));
      await expect(put(f, [{ n: 1 }], { table })).rejects.toBeInstanceOf(PutDeadlineError);
      expect(await readBatchHead(f.table, SHARD, 1)).toMatchObject({ kind: 'void' });
    });
  });

  describe('readBatches', () => {
    it('fails the flush loudly, committing nothing, when a spilled payload was altered', async () => {
      const f = await fixture(dynalite(), { spillBytes: 0 });
      await put(f, [{ n: 1 }]);
      const [key] = await spillKeys(f.memory);
      const bytes = (await f.memory.get(key!))!;
      await f.memory.delete(key!);
      await f.memory.putIfAbsent(
        key!,
        Uint8Array.from(bytes, (b, i) => (i === 12 ? b ^ 1 : b)),
      );
      await expect(flushShard(f.flushDeps('t'), SHARD)).rejects.toThrow(
        /does not match its batch item/,
      );
      expect(await readShardRecord(f.table, SHARD)).toMatchObject({ durableSeq: 0 });
    });

    it('fails the flush loudly, committing nothing, when a spilled payload is missing', async () => {
      const f = await fixture(dynalite(), { spillBytes: 0 });
      await put(f, [{ n: 1 }]);
      const [key] = await spillKeys(f.memory);
      await f.memory.delete(key!);
      const error = await flushShard(f.flushDeps('t'), SHARD).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CorruptDataError);
      expect((error as CorruptDataError).objectKey).toBe(key);
      expect(await readShardRecord(f.table, SHARD)).toMatchObject({ durableSeq: 0 });
    });

    it('still reads batches spilled before spilling was switched off', async () => {
      const f = await fixture(dynalite(), { spillBytes: 0 });
      await put(f, [{ n: 1 }]);
      const off = {
        ...f.table,
        spill: payloadSpill(validateSettings({ spillBytes: 'off' }), () => f.store),
      };
      await put(f, [{ n: 2 }], { table: off });
      expect(await spillKeys(f.memory)).toHaveLength(1);
      await drain(f.flushDeps('drain', { table: off }), SHARD);
      expect(await walRows(f)).toEqual([{ n: 1 }, { n: 2 }]);
    });

    it('refuses to read a spilled batch in a process with no object store for the table', async () => {
      const f = await fixture(dynalite(), { spillBytes: 0 });
      await put(f, [{ n: 1 }]);
      const { spill: _spill, ...table } = f.table;
      await expect(flushShard(f.flushDeps('t', { table }), SHARD)).rejects.toBeInstanceOf(
        InternalError,
      );
    });
  });

  describe('quarantineBatch', () => {
    it('keeps the payload in its copy, so the lifecycle rule cannot take it', async () => {
      const f = await fixture(dynalite(), { spillBytes: 0 });
      const rows = noisyRows(2, 1_000, 3);
      await put(f, rows);
      await quarantineBatch(f.table, SHARD, {
        seq: 1,
        generation: 2,
        reason: 'test',
        nowMs: f.clock.now(),
      });
      for (const key of await spillKeys(f.memory)) await f.memory.delete(key);
      const [rejected] = await listRejectedBatches(f.table, SHARD);
      expect(rejected?.rows.map((row) => rowValue(row))).toEqual(rows);
    });
  });

  describe('respillAged', () => {
    it("copies a pending batch's payload once half the lifecycle has passed, and the flush reads the copy", async () => {
      const f = await fixture(dynalite(), { spillBytes: 0 });
      await put(f, [{ n: 1 }]);
      // A shard stalled this long refuses new puts (L5); its pending batch must still flush.
      f.clock.advance(RESPILL_AGE_MS - 1);
      const record = () => readShardRecord(f.table, SHARD).then((r) => r!);
      expect(await respillAged(f.table, await record(), f.clock.now())).toBe(0);

      f.clock.advance(1);
      expect(await respillAged(f.table, await record(), f.clock.now())).toBe(1);
      const [original] = await spillKeys(f.memory);
      expect((await headItem(f, 1)).spillKey).toEqual({ S: `${original}.${f.clock.now()}` });
      expect(await respillAged(f.table, await record(), f.clock.now())).toBe(0);

      await f.memory.delete(original!); // the lifecycle rule's turn
      await drain(f.flushDeps('drain'), SHARD);
      expect(await walRows(f)).toEqual([{ n: 1 }]);
    });

    it('leaves batches the last commit covered alone', async () => {
      const f = await fixture(dynalite(), { spillBytes: 0 });
      await put(f, [{ n: 1 }]);
      await drain(f.flushDeps('drain'), SHARD);
      f.clock.advance(RESPILL_AGE_MS);
      const record = (await readShardRecord(f.table, SHARD))!;
      expect(await respillAged(f.table, record, f.clock.now())).toBe(0);
    });
  });
});
