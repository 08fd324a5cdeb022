/**
 * Runs the same command against two DynamoDB clients (dynalite, the
 * reference, and `MemoryDynamoDB`) and puts both outcomes in one comparable
 * form: outputs without transport metadata, binaries as byte arrays, errors
 * as their name and message (a syntax error's detail aside).
 */
import { type AttributeValue, ScanCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoSender } from './memory-dynamodb.js';
import type { GeneratedCommand } from './shardwal-commands.js';

/** One request's outcome in comparable form. */
export type Outcome = { output: unknown } | { error: { name: string; message: string } };

/** Plain data: Uint8Array (and Buffer) become number arrays; $metadata and capacity go. */
function plain(value: unknown): unknown {
  if (value instanceof Uint8Array) return Array.from(value);
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      if (key === '$metadata' || key === 'ConsumedCapacity' || child === undefined) continue;
      out[key] = plain(child);
    }
    return out;
  }
  return value;
}

/** Sends `command`; never throws. */
async function outcomeOf(client: DynamoSender, command: object): Promise<Outcome> {
  try {
    return { output: plain(await client.send(command)) };
  } catch (error) {
    const e = error as { name?: string; message?: string };
    // How a syntax error is worded is the parser's own (dynalite's PEG parser vs DynamoDB's).
    const message = (e.message ?? '').replace(/Syntax error;.*$/, 'Syntax error');
    return { error: { name: e.name ?? 'Error', message } };
  }
}

/** Both clients' outcomes of one generated command (every page, for a paginated read). */
export async function runOnBoth(
  reference: DynamoSender,
  subject: DynamoSender,
  generated: GeneratedCommand,
): Promise<{ reference: Outcome[]; subject: Outcome[] }> {
  if (generated.kind === 'single') {
    return {
      reference: [await outcomeOf(reference, generated.command)],
      subject: [await outcomeOf(subject, generated.command)],
    };
  }
  const walk = async (client: DynamoSender) => {
    const pages: Outcome[] = [];
    let startKey: Record<string, AttributeValue> | undefined;
    do {
      const outcome = await outcomeOf(client, generated.page(startKey));
      pages.push(outcome);
      startKey = 'output' in outcome ? lastKey(outcome.output) : undefined;
      // A runaway pagination is a bug on one side; stop and let the comparison show it.
    } while (startKey && pages.length < 100);
    return pages;
  };
  return { reference: await walk(reference), subject: await walk(subject) };
}

function lastKey(output: unknown): Record<string, AttributeValue> | undefined {
  const key = (output as { LastEvaluatedKey?: Record<string, unknown> }).LastEvaluatedKey;
  if (!key) return undefined;
  // Back from plain form to AttributeValues (binaries are never key attributes here).
  return key as Record<string, AttributeValue>;
}

/** Every item of `tableName` through paginated Scans, sorted by (pk, sk), in plain form. */
export async function tableContents(client: DynamoSender, tableName: string): Promise<unknown[]> {
  const items: Record<string, { S?: string }>[] = [];
  let startKey: Record<string, AttributeValue> | undefined;
  do {
    const out = await client.send(
      new ScanCommand({ TableName: tableName, ExclusiveStartKey: startKey, ConsistentRead: true }),
    );
    items.push(...(plain(out.Items ?? []) as Record<string, { S?: string }>[]));
    startKey = out.LastEvaluatedKey;
  } while (startKey);
  const sortKey = (item: Record<string, { S?: string }>) => `${item.pk?.S}\u0000${item.sk?.S}`;
  return items.sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : sortKey(a) > sortKey(b) ? 1 : 0));
}
