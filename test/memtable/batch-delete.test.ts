import { describe, expect, it } from 'vitest';
import { UnprocessedItemsError } from '../../lib/errors.js';
import { deleteBatches } from '../../lib/memtable/batch-delete.js';
import { readBatchHead } from '../../lib/memtable/batch-heads.js';
import { batchSk } from '../../lib/memtable/table.js';
import { fixture, useDynalite } from '../support/harness.js';
import { isBatchWriteItem, scriptedTable } from '../support/scripted-table.js';
import { putBatch } from '../support/wal-chain.js';

const dynalite = useDynalite();
const SHARD = 'del';

describe('deleteBatches', () => {
  it('sends unprocessed items again until DynamoDB takes them', async () => {
    const f = await fixture(dynalite());
    await putBatch(f.put, SHARD, [{ n: 1 }]);
    const scripted = scriptedTable(f.table);
    scripted.add({ match: isBatchWriteItem, effect: 'unprocessed', times: 4 });
    await deleteBatches(scripted.table, SHARD, [batchSk(1)]);
    expect(scripted.hits.unprocessed).toBe(4);
    expect(await readBatchHead(f.table, SHARD, 1)).toBeUndefined();
  });

  it('raises UnprocessedItemsError when items are still unprocessed after every attempt', async () => {
    const f = await fixture(dynalite());
    await putBatch(f.put, SHARD, [{ n: 1 }]);
    const scripted = scriptedTable(f.table);
    scripted.add({ match: isBatchWriteItem, effect: 'unprocessed', times: 5 });
    const thrown = await deleteBatches(scripted.table, SHARD, [batchSk(1)]).catch((e) => e);
    expect(thrown).toBeInstanceOf(UnprocessedItemsError);
    expect(thrown).toMatchObject({ kind: 'unavailable', unprocessed: 1, attempts: 5 });
    expect(await readBatchHead(f.table, SHARD, 1)).toBeDefined();
  });
});
