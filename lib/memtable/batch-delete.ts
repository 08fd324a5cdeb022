/**
 * Deletes items by key with BatchWriteItem, 25 keys a request (DynamoDB's
 * limit). DynamoDB may leave some of a request's items unprocessed when it
 * is short of throughput; those are sent again under the backoff policy
 * (`lib/retry.ts`), and if any remain after its last attempt the delete
 * raises `UnprocessedItemsError`: it never returns with items still there.
 */
import { BatchWriteItemCommand } from '@aws-sdk/client-dynamodb';
import { UnavailableError, UnprocessedItemsError } from '../errors.js';
import { RetryPolicy, retry } from '../retry.js';
import { batchItemKey } from './batch-item.js';
import { type Item, sendUnconditional, type Table } from './table.js';

/** Items BatchWriteItem takes in one request. */
const BATCH_WRITE_MAX_ITEMS = 25;

type DeleteRequest = { DeleteRequest: { Key: Item } };

/** Deletes the items at `keys` of `table`; `what` names the operation in errors. */
export async function deleteItems(
  table: Table,
  keys: readonly Item[],
  what: string,
): Promise<void> {
  for (let at = 0; at < keys.length; at += BATCH_WRITE_MAX_ITEMS) {
    let requests: DeleteRequest[] = keys
      .slice(at, at + BATCH_WRITE_MAX_ITEMS)
      .map((Key) => ({ DeleteRequest: { Key } }));
    await retry(
      RetryPolicy.backoff,
      async (n) => {
        const out = await sendUnconditional<{ UnprocessedItems?: Record<string, DeleteRequest[]> }>(
          table,
          new BatchWriteItemCommand({ RequestItems: { [table.tableName]: requests } }),
          what,
        );
        requests = out.UnprocessedItems?.[table.tableName] ?? [];
        if (requests.length > 0) throw new UnprocessedItemsError(what, requests.length, n);
      },
      { retryable: (error) => error instanceof UnavailableError },
    );
  }
}

/**
 * Deletes batch items by sort key (heads and chunks): only quarantine moves a
 * batch away (H2 in `batch-item.ts`). Raises `UnprocessedItemsError` when
 * DynamoDB leaves some of them in place after every retry.
 */
export async function deleteBatches(
  table: Table,
  shard: string,
  keys: readonly string[],
): Promise<void> {
  await deleteItems(
    table,
    keys.map((sk) => batchItemKey(shard, sk)),
    'BatchWriteItem delete batches',
  );
}
