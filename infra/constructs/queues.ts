/**
 * The two work queues, each with a dead-letter queue: `ingest` carries
 * producers' puts, `flush` carries size-triggered flush requests and the
 * tick's fan-out (one message per shard).
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

/** Receives before a message is parked in its DLQ: enough for throttles and races, few enough to surface poison. */
export const MAX_RECEIVE_COUNT = 5;

/**
 * AWS's rule for an SQS event source: visibility timeout of at least six
 * times the function timeout (plus the batching window), so a message is not
 * handed to a second consumer while retries of the first are still running.
 */
export function visibilityTimeoutFor(
  functionTimeout: Duration,
  batchingWindow = Duration.seconds(0),
): Duration {
  return Duration.seconds(6 * functionTimeout.toSeconds() + batchingWindow.toSeconds());
}

/** Props of `Queues`. */
export interface QueuesProps {
  /** Timeout of the put function consuming `ingest`. */
  ingestConsumerTimeout: Duration;
  /** Batching window of the `ingest` event source. */
  ingestBatchingWindow: Duration;
  /** Timeout of the flush worker consuming `flush`. */
  flushConsumerTimeout: Duration;
}

function workQueue(
  scope: Construct,
  id: string,
  visibilityTimeout: Duration,
  removalPolicy: RemovalPolicy,
): { queue: Queue; dlq: Queue } {
  const dlq = new Queue(scope, `${id}Dlq`, {
    // SSE-SQS: encrypted at rest with no key for producers to be granted.
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
    removalPolicy,
  });
  const queue = new Queue(scope, id, {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    visibilityTimeout,
    deadLetterQueue: { queue: dlq, maxReceiveCount: MAX_RECEIVE_COUNT },
    removalPolicy,
  });
  return { queue, dlq };
}

/** Ingest and flush queues with their DLQs. */
export class Queues extends Construct {
  readonly ingest: Queue;
  readonly ingestDlq: Queue;
  readonly flush: Queue;
  readonly flushDlq: Queue;

  constructor(scope: Construct, id: string, props: QueuesProps) {
    super(scope, id);
    const ingest = workQueue(
      this,
      'Ingest',
      visibilityTimeoutFor(props.ingestConsumerTimeout, props.ingestBatchingWindow),
      // Unconsumed and dead-lettered puts are producers' rows: keep them if the stack goes.
      RemovalPolicy.RETAIN,
    );
    // Flush requests carry no rows (the batches are in the table): nothing to keep.
    const flush = workQueue(
      this,
      'Flush',
      visibilityTimeoutFor(props.flushConsumerTimeout),
      RemovalPolicy.DESTROY,
    );
    this.ingest = ingest.queue;
    this.ingestDlq = ingest.dlq;
    this.flush = flush.queue;
    this.flushDlq = flush.dlq;
  }
}
