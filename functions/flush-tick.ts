/** Lambda: the flush-interval ticker, on an EventBridge Scheduler schedule. */
import type { Context } from 'aws-lambda';
import { flushQueueFromEnv } from '../lib/runtime/flush-requests.js';
import { bucketStoreFromEnv } from '../lib/runtime/object-store-from-env.js';
import { serviceFromEnv } from '../lib/runtime/service.js';
import { wrapHandler } from '../lib/runtime/wrap.js';
import { runScheduledTicks } from '../lib/ticker/scheduled-tick.js';

const service = serviceFromEnv(process.env, {
  store: bucketStoreFromEnv(),
  flushQueue: flushQueueFromEnv(),
});

export const handler = wrapHandler((event: unknown, context: Context) =>
  runScheduledTicks(service, context, event),
);
