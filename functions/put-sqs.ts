/** Lambda: the SQS ingest queues' consumer (standard and FIFO), with partial batch responses. */
import type { Context, SQSEvent } from 'aws-lambda';
import { flushQueueFromEnv } from '../lib/runtime/flush-requests.js';
import { serviceFromEnv } from '../lib/runtime/service.js';
import { wrapHandler } from '../lib/runtime/wrap.js';
import { ingestQueuesFromEnv } from '../lib/sqs/ingest-queues-from-env.js';
import { handlePutMessages } from '../lib/sqs/put-messages.js';

// DynamoDB and the flush queue (size triggers) now; S3 when a batch first spills.
const service = serviceFromEnv(process.env, { flushQueue: flushQueueFromEnv() });
const queues = ingestQueuesFromEnv();

export const handler = wrapHandler((event: SQSEvent, context: Context) =>
  handlePutMessages(event, context, service.put, queues),
);
