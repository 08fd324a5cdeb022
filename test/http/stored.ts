/**
 * What a test fixture holds: every table item and every object, as one
 * comparable text. A refused put must leave it unchanged: no shard record,
 * no batch, no idempotency record, no object.
 */
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { META_SK } from '../../lib/memtable/table.js';
import { walKey } from '../../lib/paths.js';
import { decodeWal } from '../../lib/wal/decode.js';
import type { Fixture } from '../support/harness.js';

/**
 * Every item of the table and every object key, sorted, as text. With
 * `sealedSeqs`, the shard records and void batch items are left out: a put
 * refused only after it allocated (a key reused with another payload: the
 * reservation's create is the check) seals its seq void, storing no row.
 */
export async function storedState(
  f: Fixture,
  options: { sealedSeqs?: boolean } = {},
): Promise<string> {
  const items: string[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await f.table.client.send(
      new ScanCommand({
        TableName: f.table.tableName,
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start as never } : {}),
      }),
    );
    for (const item of out.Items ?? []) {
      if (options.sealedSeqs && (item.sk?.S === META_SK || item.kind?.S === 'void')) continue;
      items.push(JSON.stringify(item));
    }
    start = out.LastEvaluatedKey;
  } while (start);
  return JSON.stringify({ items: items.sort(), objects: f.memory.keys().sort() });
}

/** The row texts of WAL object 0 of `shard`, in WAL order (flush first). */
export async function walRowTexts(f: Fixture, shard: string): Promise<(string | undefined)[]> {
  const bytes = await f.memory.get(walKey(shard, 0));
  if (!bytes) throw new Error(`no WAL object 0 for ${shard}`);
  return decodeWal(walKey(shard, 0), bytes).rows.map((row) => row.text);
}
