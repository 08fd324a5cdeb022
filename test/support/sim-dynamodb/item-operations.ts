/**
 * The single-item requests and BatchWriteItem. Each one validates its whole
 * request first (as DynamoDB does: a malformed request fails whatever the
 * item holds), then reads, checks the condition, and writes, with no await in
 * between: a request applies atomically.
 */
import type {
  AttributeValue,
  BatchWriteItemCommandInput,
  BatchWriteItemCommandOutput,
  DeleteItemCommandInput,
  DeleteItemCommandOutput,
  GetItemCommandInput,
  GetItemCommandOutput,
  PutItemCommandInput,
  PutItemCommandOutput,
  UpdateItemCommandInput,
  UpdateItemCommandOutput,
} from '@aws-sdk/client-dynamodb';
import { applyUpdate, checkKeyUpdates, updatedPaths } from './apply-update.js';
import { acceptItem, cloneItem, type Item, itemSize, MAX_ITEM_BYTES } from './attribute-values.js';
import { evaluateCondition } from './evaluate-condition.js';
import { project } from './projection.js';
import { type RequestExpressions, requestExpressions } from './request-expressions.js';
import { conditionalCheckFailed, validationError } from './sdk-errors.js';
import { acceptKey, checkIndexKeys, checkItemKeys, keyToken } from './table-schema.js';
import type { TableStore } from './table-store.js';

type Output<T> = Omit<T, '$metadata'>;

function returnValues(given: string | undefined, allowed: readonly string[]): string {
  const value = given ?? 'NONE';
  if (!allowed.includes(value)) {
    throw validationError(
      allowed.length === 2
        ? 'ReturnValues can only be ALL_OLD or NONE'
        : `1 validation error detected: Value '${value}' at 'returnValues' failed to satisfy constraint: Member must satisfy enum value set: [${allowed.join(', ')}]`,
    );
  }
  return value;
}

function checkCondition(
  expressions: RequestExpressions,
  old: Item | undefined,
  onFailure: string | undefined,
): void {
  const { condition, values } = expressions;
  if (!condition || evaluateCondition(condition, old ?? {}, values)) return;
  throw conditionalCheckFailed(onFailure === 'ALL_OLD' && old ? cloneItem(old) : undefined);
}

/** GetItem. */
export function getItem(
  store: TableStore,
  input: GetItemCommandInput,
): Output<GetItemCommandOutput> {
  const key = acceptKey(store.schema, input.Key);
  const { projection } = requestExpressions(input, ['ProjectionExpression']);
  const item = store.get(key);
  if (!item) return {};
  return { Item: projection ? project(item, projection) : cloneItem(item) };
}

/** PutItem. */
export function putItem(
  store: TableStore,
  input: PutItemCommandInput,
): Output<PutItemCommandOutput> {
  const item = acceptItem(input.Item ?? {});
  checkItemKeys(store.schema, item);
  if (itemSize(item) > MAX_ITEM_BYTES) {
    throw validationError('Item size has exceeded the maximum allowed size');
  }
  const wanted = returnValues(input.ReturnValues, ['NONE', 'ALL_OLD']);
  const expressions = requestExpressions(input, ['ConditionExpression']);
  const key: Item = {};
  for (const name of store.schema.keyNames) key[name] = item[name]!;
  const old = store.get(key);
  checkCondition(expressions, old, input.ReturnValuesOnConditionCheckFailure);
  store.put(item);
  return wanted === 'ALL_OLD' && old ? { Attributes: cloneItem(old) } : {};
}

/** UpdateItem. */
export function updateItem(
  store: TableStore,
  input: UpdateItemCommandInput,
): Output<UpdateItemCommandOutput> {
  const key = acceptKey(store.schema, input.Key);
  const wanted = returnValues(input.ReturnValues, [
    'NONE',
    'ALL_OLD',
    'UPDATED_OLD',
    'ALL_NEW',
    'UPDATED_NEW',
  ]);
  const expressions = requestExpressions(input, ['UpdateExpression', 'ConditionExpression']);
  const actions = expressions.update ?? { clauses: [], set: [], remove: [], add: [], delete: [] };
  checkKeyUpdates(actions, store.schema.keyNames);
  const old = store.get(key);
  checkCondition(expressions, old, input.ReturnValuesOnConditionCheckFailure);
  const item = applyUpdate(old, key, actions, expressions.values);
  if (item) {
    checkIndexKeys(store.schema, item);
    if (itemSize(item) > MAX_ITEM_BYTES) {
      throw validationError('Item size to update has exceeded the maximum allowed size');
    }
    store.put(item);
  }
  switch (wanted) {
    case 'ALL_OLD':
      return old ? { Attributes: cloneItem(old) } : {};
    case 'ALL_NEW':
      return item ? { Attributes: cloneItem(item) } : {};
    case 'UPDATED_OLD':
      return old ? { Attributes: project(old, updatedPaths(actions)) } : {};
    case 'UPDATED_NEW':
      return item ? { Attributes: project(item, updatedPaths(actions)) } : {};
    default:
      return {};
  }
}

/** DeleteItem. */
export function deleteItem(
  store: TableStore,
  input: DeleteItemCommandInput,
): Output<DeleteItemCommandOutput> {
  const key = acceptKey(store.schema, input.Key);
  const wanted = returnValues(input.ReturnValues, ['NONE', 'ALL_OLD']);
  const expressions = requestExpressions(input, ['ConditionExpression']);
  const old = store.get(key);
  checkCondition(expressions, old, input.ReturnValuesOnConditionCheckFailure);
  store.delete(key);
  return wanted === 'ALL_OLD' && old ? { Attributes: cloneItem(old) } : {};
}

/** DynamoDB's cap on the requests of one BatchWriteItem. */
const MAX_BATCH_WRITES = 25;

/** BatchWriteItem: every request validated first, then all applied; nothing is left unprocessed. */
export function batchWriteItem(
  table: (name: string) => TableStore,
  input: BatchWriteItemCommandInput,
): Output<BatchWriteItemCommandOutput> {
  const entries = Object.entries(input.RequestItems ?? {});
  const total = entries.reduce((n, [, requests]) => n + requests.length, 0);
  if (total === 0 || total > MAX_BATCH_WRITES) {
    throw validationError(
      total === 0
        ? "1 validation error detected: Value at 'requestItems' failed to satisfy constraint: Member must have length greater than or equal to 1"
        : 'Too many items requested for the BatchWriteItem call',
    );
  }
  const writes: (() => void)[] = [];
  for (const [name, requests] of entries) {
    const store = table(name);
    const seen = new Set<string>();
    for (const request of requests) {
      let key: Item;
      if (request.PutRequest && !request.DeleteRequest) {
        const item = acceptItem(request.PutRequest.Item ?? {});
        try {
          checkItemKeys(store.schema, item);
        } catch (error) {
          // BatchWriteItem words a bad item key the way it words a bad Key.
          if (/Missing the key|Type mismatch for key/.test((error as Error).message)) {
            throw validationError('The provided key element does not match the schema');
          }
          throw error;
        }
        if (itemSize(item) > MAX_ITEM_BYTES) {
          throw validationError('Item size has exceeded the maximum allowed size');
        }
        key = Object.fromEntries(store.schema.keyNames.map((k) => [k, item[k]!]));
        writes.push(() => store.put(item));
      } else if (request.DeleteRequest && !request.PutRequest) {
        const accepted = acceptKey(store.schema, request.DeleteRequest.Key);
        key = accepted;
        writes.push(() => store.delete(accepted));
      } else {
        throw validationError(
          'A WriteRequest must hold exactly one of PutRequest or DeleteRequest',
        );
      }
      const token = store.schema.keyNames
        .map((k) => keyToken(key[k] as AttributeValue))
        .join('\u0000');
      if (seen.has(token)) throw validationError('Provided list of item keys contains duplicates');
      seen.add(token);
    }
  }
  for (const write of writes) write();
  return { UnprocessedItems: {} };
}
