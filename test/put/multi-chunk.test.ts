import { describe, expect, it } from 'vitest';
import { GapSealedError } from '../../lib/errors.js';
import { allocateSeq } from '../../lib/memtable/allocate.js';
import { encodeBatchRows, MAX_CHUNK_BYTES } from '../../lib/memtable/batch-codec.js';
import { readBatches } from '../../lib/memtable/read-batches.js';
import { sealVoid } from '../../lib/memtable/seal-void.js';
import { batchRange, batchSk, queryShardItems } from '../../lib/memtable/table.js';
import { writeBatch } from '../../lib/memtable/write-batch.js';
import { putRows } from '../../lib/put/put-rows.js';
import { parsePutValue } from '../../lib/put/schema.js';
import { seededRandom } from '../../lib/seeded-random.js';
import { fixture, useDynalite } from '../support/harness.js';
import { rowOf, rowValue } from '../support/rows.js';
import { drain, readWalChain } from '../support/wal-chain.js';

const dynalite = useDynalite();
const SHARD = 'big';

/** Rows that do not compress: `count` rows of `chars` random base-36 characters. */
function noisyRows(count: number, chars: number, seed: number) {
  const random = seededRandom(seed);
  return Array.from({ length: count }, (_, i) => {
    let text = '';
    while (text.length < chars) text += random().toString(36).slice(2);
    return { i, text: text.slice(0, chars) };
  });
}

// Batches this large spill to S3 by default (`test/put/spill.test.ts`); these tests keep them in DynamoDB.
const NO_SPILL = { spillBytes: 'off' };

describe('a batch larger than one item', () => {
  it('is split into chunks, read back whole and flushed row for row', async () => {
    const f = await fixture(dynalite(), NO_SPILL);
    const rows = noisyRows(40, 25_000, 7); // ~1 MB of JSON, ~650 KB gzip'd
    expect(encodeBatchRows(rows.map(rowOf)).chunks.length).toBeGreaterThan(1);
    const { ack } = await putRows(f.put, {
      shard: SHARD,
      body: parsePutValue({ rows }, 10_000),
      durability: 'buffered',
    });
    const items = [];
    for await (const item of queryShardItems(f.table, SHARD, batchRange(1, 1), 'test')) {
      items.push(item);
    }
    expect(items.length).toBeGreaterThan(1);
    for (const item of items)
      expect(item.data?.B?.length ?? 0).toBeLessThanOrEqual(MAX_CHUNK_BYTES);

    await drain(f.flushDeps('drain'), SHARD);
    const objects = await readWalChain(f.memory, SHARD);
    expect(objects.flatMap((o) => o.rows.map((r) => rowValue(r)))).toEqual(rows);
    expect(objects[0]?.header).toMatchObject({ firstSeq: ack.seq, lastSeq: ack.seq });
  });

  it('leaves a late writer whose seq was sealed only expiring chunks, and the seq reads as void', async () => {
    const f = await fixture(dynalite(), NO_SPILL);
    const { seq } = await allocateSeq(f.table, {
      shard: SHARD,
      bytes: 1,
      nowMs: f.clock.now(),
      maxBufferedBytes: f.config.maxBufferedBytes,
      retryAfterSeconds: 1,
    });
    expect(await sealVoid(f.table, SHARD, seq, f.clock.now())).toBe('sealed');
    const batch = encodeBatchRows(noisyRows(40, 25_000, 8).map(rowOf));
    await expect(
      writeBatch(f.table, { shard: SHARD, seq, batch, bytes: 1, nowMs: f.clock.now() }),
    ).rejects.toBeInstanceOf(GapSealedError);
    // Nothing deletes them (a delete bills like a write): every orphan chunk carries its TTL.
    const orphans = [];
    for await (const item of queryShardItems(f.table, SHARD, batchRange(seq, seq), 'test')) {
      if (item.sk?.S !== batchSk(seq)) orphans.push(item);
    }
    expect(orphans.length).toBe(batch.chunks.length - 1);
    for (const chunk of orphans) expect(Number(chunk.expiresAt?.N)).toBeGreaterThan(0);
    const [read] = await readBatches(f.table, {
      shard: SHARD,
      fromSeq: seq,
      toSeq: seq,
      maxBytes: Number.MAX_SAFE_INTEGER,
    });
    expect(read).toMatchObject({ seq, kind: 'void' });
  });
});
