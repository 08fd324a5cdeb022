/**
 * What the meter must know about a table to price its writes: the primary
 * key (to find the item a write replaces) and the global secondary indexes
 * (to price index writes). Read once per table with DescribeTable, which is
 * a control-plane call and consumes no capacity units.
 */
import {
  DescribeTableCommand,
  type DescribeTableCommandOutput,
  type KeySchemaElement,
} from '@aws-sdk/client-dynamodb';
import { InternalError } from '../../../lib/errors.js';
import { type IndexSchema, ProjectionType, type TableSchema } from './index-units.js';

/** The one method of a DynamoDB client the meter uses. */
export interface CommandSender {
  // biome-ignore lint/suspicious/noExplicitAny: any DynamoDB command, forwarded unchanged
  send(command: any): Promise<any>;
}

/** Reads `tableName`'s key schema and GSIs. */
export async function describeTableSchema(
  client: CommandSender,
  tableName: string,
): Promise<TableSchema> {
  const out = (await client.send(
    new DescribeTableCommand({ TableName: tableName }),
  )) as DescribeTableCommandOutput;
  const table = out.Table;
  if (!table?.KeySchema) throw new InternalError(`DescribeTable ${tableName}: no key schema`);
  if ((table.LocalSecondaryIndexes ?? []).length > 0) {
    // LSI writes are billed to the table; the rules for them are not implemented here.
    throw new InternalError(`table ${tableName}: local secondary indexes are not metered`);
  }
  const indexes: IndexSchema[] = (table.GlobalSecondaryIndexes ?? []).map((gsi) => {
    const projection = gsi.Projection?.ProjectionType ?? ProjectionType.keysOnly;
    if (!Object.values(ProjectionType).includes(projection as ProjectionType)) {
      throw new InternalError(`index ${gsi.IndexName}: unknown projection ${projection}`);
    }
    return {
      name: gsi.IndexName ?? '',
      keyNames: keyNames(gsi.KeySchema ?? []),
      projection: projection as ProjectionType,
      nonKeyAttributes: gsi.Projection?.NonKeyAttributes ?? [],
    };
  });
  return { tableName, keyNames: keyNames(table.KeySchema), indexes };
}

/** Attribute names of a key schema, partition key first. */
function keyNames(schema: readonly KeySchemaElement[]): string[] {
  const rank = (e: KeySchemaElement) => (e.KeyType === 'HASH' ? 0 : 1);
  return [...schema].sort((a, b) => rank(a) - rank(b)).map((e) => e.AttributeName ?? '');
}
