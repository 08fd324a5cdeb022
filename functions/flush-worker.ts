/** Lambda: the flush queue's consumer (size triggers and tick fan-out). */
import type { Context, SQSEvent } from 'aws-lambda';
import { bucketStoreFromEnv } from '../lib/runtime/object-store-from-env.js';
import { serviceFromEnv } from '../lib/runtime/service.js';
import { wrapHandler } from '../lib/runtime/wrap.js';
import { handleFlushMessages } from '../lib/sqs/flush-messages.js';

const service = serviceFromEnv(process.env, { store: bucketStoreFromEnv() });

export const handler = wrapHandler((event: SQSEvent, context: Context) =>
  handleFlushMessages(
    event,
    context,
    service.flush(context.awsRequestId),
    service.takeover(context.awsRequestId),
  ),
);
