/**
 * The quarantine (`lib/memtable/quarantine.ts`): a batch rebuild rejects is
 * copied whole, chunks included, with no TTL, before its original items are
 * deleted, so a rebuild that dies in between loses nothing and its re-run
 * quarantines the same batch again.
 */
import { createHash } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { listRejectedBatches, quarantineBatch } from '../../lib/memtable/quarantine.js';
import { batchRange, type Item, queryShardItems, type Table } from '../../lib/memtable/table.js';
import { putRows } from '../../lib/put/put-rows.js';
import { parsePutValue } from '../../lib/put/schema.js';
import { seededRandom } from '../../lib/seeded-random.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';
import { caught } from '../wal/helpers.js';

const dynalite = useDynalite();
const SHARD = 'q1';

/** A buffered put of ~650 KB gzip'd (two or more chunks, not spilled); its seq and rows. */
async function putMultiChunk(f: Fixture) {
  const random = seededRandom(5);
  const rows = Array.from({ length: 40 }, (_, i) => {
    let text = '';
    while (text.length < 25_000) text += random().toString(36).slice(2);
    return { i, text };
  });
  const body = parsePutValue({ rows }, 10_000);
  const { ack } = await putRows(f.put, { shard: SHARD, body, durability: 'buffered' });
  return { seq: ack.seq!, rows: body.rows };
}

async function items(f: Fixture, lo: string, hi: string): Promise<Item[]> {
  const out: Item[] = [];
  for await (const item of queryShardItems(f.table, SHARD, { lo, hi }, 'test')) out.push(item);
  return out;
}

const batchItems = (f: Fixture, seq: number) => {
  const range = batchRange(seq, seq);
  return items(f, range.lo, range.hi);
};
const rejectedItems = (f: Fixture) => items(f, 'rejected#', 'rejected#~');

/** An item as a short string: its key and a hash of its attributes (payloads are large). */
const digest = (item: Item) =>
  `${item.sk?.S} ${createHash('sha256')
    .update(
      JSON.stringify(item, (_k, v) =>
        v instanceof Uint8Array ? Buffer.from(v).toString('base64') : v,
      ),
    )
    .digest('hex')}`;

/** `table` whose first quarantine copy write fails, as a process dying at it would leave things. */
function failingFirstCopy(table: Table): Table {
  let failed = false;
  const client = {
    send: (command: unknown) => {
      if (
        !failed &&
        command instanceof PutItemCommand &&
        command.input.Item?.sk?.S?.startsWith('rejected#')
      ) {
        failed = true;
        return Promise.reject(
          Object.assign(new Error('injected'), { name: 'AccessDeniedException' }),
        );
      }
      return table.client.send(command as never);
    },
  };
  return { ...table, client: client as unknown as DynamoDBClient };
}

describe('quarantineBatch', () => {
  it('moves a multi-chunk batch whole, with no TTL on the copy', async () => {
    const f = await fixture(dynalite(), { spillBytes: 'off' });
    const { seq, rows } = await putMultiChunk(f);
    const original = await batchItems(f, seq);
    expect(original.length).toBeGreaterThan(1);
    await quarantineBatch(f.table, SHARD, { seq, generation: 3, reason: 'test', nowMs: 1 });
    expect(await batchItems(f, seq)).toEqual([]);
    const copies = await rejectedItems(f);
    expect(copies).toHaveLength(original.length);
    for (const copy of copies) expect(copy.expiresAt).toBeUndefined();
    const [rejected] = await listRejectedBatches(f.table, SHARD);
    expect(rejected).toMatchObject({ seq, generation: 3, reason: 'test' });
    expect(rejected!.rows).toEqual(rows);
  });

  it('leaves the batch in place when its copy fails, and a re-run moves it whole', async () => {
    const f = await fixture(dynalite(), { spillBytes: 'off' });
    const { seq, rows } = await putMultiChunk(f);
    const original = await batchItems(f, seq);
    const input = { seq, generation: 3, reason: 'test', nowMs: 1 };
    expect(
      await caught(() => quarantineBatch(failingFirstCopy(f.table), SHARD, input)),
    ).toBeDefined();
    expect((await batchItems(f, seq)).map(digest)).toEqual(original.map(digest));
    await quarantineBatch(f.table, SHARD, input);
    expect(await batchItems(f, seq)).toEqual([]);
    const batches = await listRejectedBatches(f.table, SHARD);
    expect(batches).toHaveLength(1);
    expect(batches[0]!.rows).toEqual(rows);
  });
});
