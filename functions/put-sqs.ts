/** Lambda: the SQS ingest queue's consumer, with partial batch responses. */
import type { Context, SQSEvent } from 'aws-lambda';
import { serviceFromEnv } from '../lib/runtime/service.js';
import { wrapHandler } from '../lib/runtime/wrap.js';
import { handlePutMessages } from '../lib/sqs/put-messages.js';

const service = serviceFromEnv();

export const handler = wrapHandler((event: SQSEvent, context: Context) =>
  handlePutMessages(event, context, service.put),
);
