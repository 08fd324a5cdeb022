/** Lambda: the SQS ingest queues' consumer (standard and FIFO), with partial batch responses. */
import type { Context, SQSEvent } from 'aws-lambda';
import { serviceFromEnv } from '../lib/runtime/service.js';
import { wrapHandler } from '../lib/runtime/wrap.js';
import { ingestQueuesFromEnv } from '../lib/sqs/ingest-queues-from-env.js';
import { handlePutMessages } from '../lib/sqs/put-messages.js';

const service = serviceFromEnv();
const queues = ingestQueuesFromEnv();

export const handler = wrapHandler((event: SQSEvent, context: Context) =>
  handlePutMessages(event, context, service.put, queues),
);
