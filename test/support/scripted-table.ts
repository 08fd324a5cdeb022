/**
 * A `Table` whose DynamoDB client misbehaves on cue: a test scripts, per
 * kind of request, a failure before it applies, a lost response after it
 * applied (the write landed, the caller sees a network error), a lost
 * response the SDK's own retry answers (the request applied twice, the
 * caller sees the second outcome: a conditional write's own condition
 * failure), a hang (the
 * caller's process is as good as dead), or, for a BatchWriteItem, every item
 * left unprocessed (DynamoDB short of throughput: nothing applied, the
 * response lists the request's items). Requests no script matches pass
 * through unchanged.
 */
import {
  BatchWriteItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import type { Table } from '../../lib/memtable/table.js';

/** What happens to a matching request. */
type Effect = 'fail' | 'lose-response' | 'retried-lost-response' | 'hang' | 'unprocessed';

/** One scripted misbehaviour. */
interface Script {
  match: (command: unknown) => boolean;
  effect: Effect;
  /** How many matching requests it applies to (default 1). */
  times?: number;
}

/** A scripted table plus its controls. */
export interface ScriptedTable {
  table: Table;
  add: (script: Script) => void;
  /** Requests that hit a script, by effect. */
  hits: Record<Effect, number>;
}

function networkError(): Error {
  return Object.assign(new Error('socket hang up'), { name: 'TimeoutError', $metadata: {} });
}

function serverError(): Error {
  return Object.assign(new Error('We encountered an internal error'), {
    name: 'InternalServerError',
    $metadata: { httpStatusCode: 500 },
  });
}

/** Wraps `table`'s client. */
export function scriptedTable(table: Table): ScriptedTable {
  const scripts: Array<Script & { left: number }> = [];
  const hits: Record<Effect, number> = {
    fail: 0,
    'lose-response': 0,
    'retried-lost-response': 0,
    hang: 0,
    unprocessed: 0,
  };
  const client = {
    send: async (command: unknown) => {
      const script = scripts.find((s) => s.left > 0 && s.match(command));
      // biome-ignore lint/suspicious/noExplicitAny: forwarding any command unchanged
      const forward = () => table.client.send(command as any);
      if (!script) return forward();
      script.left -= 1;
      hits[script.effect] += 1;
      if (script.effect === 'fail') throw serverError();
      if (script.effect === 'hang') return new Promise(() => undefined);
      if (script.effect === 'unprocessed') {
        return { UnprocessedItems: (command as BatchWriteItemCommand).input.RequestItems };
      }
      await forward();
      if (script.effect === 'retried-lost-response') return forward();
      throw networkError();
    },
  } as unknown as DynamoDBClient;
  return {
    table: { ...table, client },
    add: (script) => scripts.push({ ...script, left: script.times ?? 1 }),
    hits,
  };
}

/** The batch item write of a put (its head). */
export function isBatchWrite(command: unknown): boolean {
  return command instanceof PutItemCommand && command.input.Item?.kind?.S === 'rows';
}

/** A BatchWriteItem (batch deletes, the local TTL sweep). */
export function isBatchWriteItem(command: unknown): boolean {
  return command instanceof BatchWriteItemCommand;
}

/** A void seal. */
export function isVoidSeal(command: unknown): boolean {
  return command instanceof PutItemCommand && command.input.Item?.kind?.S === 'void';
}

/** A read of one batch head. */
export function isBatchHeadRead(command: unknown): boolean {
  return command instanceof GetItemCommand && (command.input.Key?.sk?.S ?? '').startsWith('batch#');
}

/** The create of an idempotency reservation. */
export function isReservationCreate(command: unknown): boolean {
  return command instanceof PutItemCommand && (command.input.Item?.pk?.S ?? '').startsWith('idem#');
}

/** A read of a shard record. */
export function isShardRecordRead(command: unknown): boolean {
  return command instanceof GetItemCommand && command.input.Key?.sk?.S === 'meta';
}

/** The seq allocation update. */
export function isAllocation(command: unknown): boolean {
  return (
    command instanceof UpdateItemCommand &&
    (command.input.UpdateExpression ?? '').includes('nextSeq = if_not_exists')
  );
}
