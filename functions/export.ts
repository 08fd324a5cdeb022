/** Lambda: the AOF export, on an EventBridge Scheduler schedule (or `{ "shard" }` on demand). */
import type { Context } from 'aws-lambda';
import { exportDeps } from '../lib/export/deps.js';
import { handleExportEvent } from '../lib/export/export-event.js';
import { bucketStoreFromEnv } from '../lib/runtime/object-store-from-env.js';
import { serviceFromEnv } from '../lib/runtime/service.js';
import { wrapHandler } from '../lib/runtime/wrap.js';

/** Time kept free at the end of an invocation: no new shard starts inside it. */
const RESERVE_MS = 60_000;

const service = serviceFromEnv(process.env, { store: bucketStoreFromEnv() });
const deps = exportDeps(service);

export const handler = wrapHandler((event: unknown, context: Context) =>
  handleExportEvent(deps, event, {
    shouldStop: () => context.getRemainingTimeInMillis() < RESERVE_MS,
  }),
);
