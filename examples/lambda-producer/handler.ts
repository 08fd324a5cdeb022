/**
 * An example Lambda producer: puts the orders of each event into the
 * `orders` shard, keyed by `orderId`, through the deployed HTTP API.
 *
 * Exactly once across Lambda's own retries: an asynchronous invocation that
 * Lambda retries keeps its request id, and the batches are cut by count and
 * bytes only (no linger), so the retry re-sends the same rows under the same
 * Idempotency-Keys and nothing lands twice.
 *
 * Deploy with:
 * - `SHARDWAL_ENDPOINT`: the stack's `ApiUrl` output;
 * - an execution role allowed `execute-api:Invoke` on `POST /v1/shards/orders/rows`
 *   (attach the stack's `ProducerPolicyArn`); the function's own credentials sign requests;
 * - a timeout above the client's retry budget (`maxElapsedMs`, here 20 s).
 */
import { createHttpProducer, ProducerBatchError, ShardwalHttpClient } from 'shardwal/client';

/** One order, as the upstream system sends it. */
interface Order {
  orderId: string;
  total: number;
  currency: string;
}

/** The event this function receives. */
interface OrdersEvent {
  orders: Order[];
}

/** The parts of the Lambda context used here. */
interface LambdaContext {
  awsRequestId: string;
}

// Built once per execution environment and reused across invocations.
const client = new ShardwalHttpClient({
  endpoint: process.env.SHARDWAL_ENDPOINT ?? '',
  auth: { region: process.env.AWS_REGION },
  requestTimeoutMs: 10_000,
  retry: { maxElapsedMs: 20_000 },
});

/** Puts the event's orders; fails the invocation (so Lambda retries it) if any batch did not land. */
export async function handler(event: OrdersEvent, context: LambdaContext) {
  const producer = createHttpProducer(client, 'orders', {
    keyField: 'orderId',
    keyPrefix: `orders-${context.awsRequestId}`,
    lingerMs: null,
  });
  for (const order of event.orders) await producer.append(order);
  try {
    await producer.close();
  } catch (error) {
    if (error instanceof ProducerBatchError) {
      console.error('orders not delivered', {
        batches: error.failures.map(({ index, key, rows, error: cause }) => ({
          index,
          key,
          rows,
          kind: cause.kind,
        })),
      });
    }
    throw error;
  }
  return { acked: producer.stats().ackedRows };
}
