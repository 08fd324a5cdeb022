/** Lambda: the flush-interval ticker, on an EventBridge Scheduler schedule. */
import type { Context } from 'aws-lambda';
import { serviceFromEnv } from '../lib/runtime/service.js';
import { wrapHandler } from '../lib/runtime/wrap.js';
import { runScheduledTicks } from '../lib/ticker/scheduled-tick.js';

const service = serviceFromEnv();

export const handler = wrapHandler((event: unknown, context: Context) =>
  runScheduledTicks(service, context, event),
);
