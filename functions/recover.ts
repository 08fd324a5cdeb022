/**
 * Lambda: recovery. Scheduled `{ "mode": "verify" }` verifies every shard;
 * `{ "shard", "mode": "verify" | "rebuild" }` runs on demand.
 */
import type { Context } from 'aws-lambda';
import { recoveryDeps } from '../lib/recovery/deps.js';
import { handleRecoverEvent } from '../lib/recovery/recover-event.js';
import { bucketStoreFromEnv } from '../lib/runtime/object-store-from-env.js';
import { serviceFromEnv } from '../lib/runtime/service.js';
import { wrapHandler } from '../lib/runtime/wrap.js';

/** Time kept free at the end of an invocation: no new shard starts inside it. */
const RESERVE_MS = 30_000;

const service = serviceFromEnv(process.env, { store: bucketStoreFromEnv() });

export const handler = wrapHandler((event: unknown, context: Context) =>
  handleRecoverEvent(recoveryDeps(service, `recovery-${context.awsRequestId}`), event, {
    shouldStop: () => context.getRemainingTimeInMillis() < RESERVE_MS,
  }),
);
