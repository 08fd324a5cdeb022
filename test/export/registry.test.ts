/**
 * Export and verify find shards through the registry index: a Query whose
 * cost follows the shards, never a Scan of the table (once the backfill of
 * records older than the registry has run), and no shard is hidden: the
 * allocation that creates a record registers it, and so does a rebuild that
 * creates one after a table loss.
 */
import { type DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { exportAll } from '../../lib/export/export-all.js';
import { exportShard } from '../../lib/export/export-shard.js';
import { backfillRegistry, listShards } from '../../lib/memtable/list-shards.js';
import { META_SK, shardPk, type Table } from '../../lib/memtable/table.js';
import { rebuildShard } from '../../lib/recovery/rebuild.js';
import { verifyAll } from '../../lib/recovery/verify-all.js';
import { exportDepsOf, recoveryDepsOf, TestShard } from '../recovery/support.js';
import { fixture, freshTable, useDynalite } from '../support/harness.js';

const dynalite = useDynalite();

/** A table handle whose client records the commands (and their index) it sends. */
function recording(table: Table): { table: Table; sent: string[] } {
  const sent: string[] = [];
  const client = {
    send: (command: { constructor: { name: string }; input: { IndexName?: string } }) => {
      sent.push(
        `${command.constructor.name}${command.input.IndexName ? `:${command.input.IndexName}` : ''}`,
      );
      return table.client.send(command as never);
    },
  } as unknown as DynamoDBClient;
  return { table: { ...table, client }, sent };
}

describe('shard registry', () => {
  it('lists every shard a put created, with a Query of the index and no Scan after the backfill', async () => {
    const f = await fixture(dynalite());
    for (const shard of ['b2', 'a1', 'c3']) await new TestShard(f, shard).keyless([{ shard }]);
    expect(await listShards(f.table)).toEqual(['a1', 'b2', 'c3']);
    const { table, sent } = recording(f.table);
    expect(await listShards(table)).toEqual(['a1', 'b2', 'c3']);
    expect(sent).toEqual(['GetItemCommand', 'QueryCommand:registry']);
    const report = await exportAll({ ...exportDepsOf(f), table });
    expect(report).toMatchObject({ shards: 3, due: 0 });
    expect(sent.filter((name) => name.startsWith('ScanCommand'))).toEqual([]);
    const verified = await verifyAll({ ...recoveryDepsOf(f), table });
    expect(verified.reports.map((r) => r.shard)).toEqual(['a1', 'b2', 'c3']);
    expect(sent.filter((name) => name.startsWith('ScanCommand'))).toEqual([]);
  });

  it('registers, once, shard records written before the registry existed', async () => {
    const f = await fixture(dynalite());
    // A record as an older version wrote it: no registry attributes.
    await f.table.client.send(
      new PutItemCommand({
        TableName: f.table.tableName,
        Item: {
          pk: { S: shardPk('old') },
          sk: { S: META_SK },
          nextSeq: { N: '1' },
          durableSeq: { N: '0' },
          walNextPos: { N: '0' },
        },
      }),
    );
    await new TestShard(f, 'new').keyless([{ n: 1 }]);
    expect(await listShards(f.table)).toEqual(['new', 'old']);
    expect(await backfillRegistry(f.table)).toBe(0); // the marker says it ran
    const { table, sent } = recording(f.table);
    await listShards(table);
    expect(sent).not.toContain('ScanCommand');
  });

  it('registers a shard that a rebuild recreates after the table was lost', async () => {
    const f = await fixture(dynalite());
    const s = new TestShard(f);
    await s.keyless([{ n: 1 }]);
    await s.flush();
    await exportShard(exportDepsOf(f), 's1');
    // The table is gone: a new, empty one over the same bucket.
    const lost = {
      ...f,
      table: { ...(await freshTable(dynalite())), lifetimes: f.table.lifetimes },
    };
    expect(await listShards(lost.table)).toEqual([]);
    const report = await rebuildShard(recoveryDepsOf(lost), 's1');
    expect(report).toMatchObject({ status: 'rebuilt', cursors: { before: null } });
    expect(await listShards(lost.table)).toEqual(['s1']);
  });
});
