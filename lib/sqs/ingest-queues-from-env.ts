/**
 * The SQS put handler's `IngestQueues`, from the environment the stack sets
 * on put-sqs (`RESOURCE_ENV`): the standard ingest queue and the FIFO one,
 * each with its dead-letter queue. Half a pair is a ConfigError naming the
 * missing variable; no pair at all is undefined (then the handler cannot
 * dead-letter or hold back, and says so when it would need to).
 */
import { RESOURCE_ENV } from '../config.js';
import { ConfigError } from '../errors.js';
import { sqsClientFromEnv } from '../runtime/clients.js';
import { type IngestRoute, SqsIngestQueues } from './sqs-ingest-queues.js';

const PAIRS = [
  [RESOURCE_ENV.ingestQueueUrl, RESOURCE_ENV.ingestDlqUrl],
  [RESOURCE_ENV.ingestFifoQueueUrl, RESOURCE_ENV.ingestFifoDlqUrl],
] as const;

/** The configured queue pairs; ConfigError for half a pair. */
export function ingestRoutesFromEnv(env: NodeJS.ProcessEnv = process.env): IngestRoute[] {
  const routes: IngestRoute[] = [];
  for (const [queueEnv, dlqEnv] of PAIRS) {
    const queueUrl = env[queueEnv] || undefined;
    const deadLetterQueueUrl = env[dlqEnv] || undefined;
    if (queueUrl && deadLetterQueueUrl) routes.push({ queueUrl, deadLetterQueueUrl });
    else if (queueUrl || deadLetterQueueUrl) {
      const [missing, other] = queueUrl ? [dlqEnv, queueEnv] : [queueEnv, dlqEnv];
      throw new ConfigError(missing, env[missing], `must be set along with ${other}`);
    }
  }
  return routes;
}

/** The adapter over the configured queues, or undefined when none is configured. */
export function ingestQueuesFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): SqsIngestQueues | undefined {
  const routes = ingestRoutesFromEnv(env);
  if (routes.length === 0) return undefined;
  return new SqsIngestQueues(sqsClientFromEnv(env), routes);
}
