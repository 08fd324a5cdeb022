/**
 * The work queues, each with a dead-letter queue: `ingest` (standard) and
 * `ingestFifo` carry producers' puts, `flush` carries size-triggered flush
 * requests and the tick's fan-out (one message per shard); and `failures`,
 * which keeps what failed outside those.
 *
 * Order of each path (README, "HTTP API"):
 *   HTTP          a put is ordered when its ack is returned (its seq);
 *   ingest        none: messages are buffered in whatever order SQS delivers
 *                 them, concurrently within a batch;
 *   ingestFifo    per message group: send each shard's messages with
 *                 MessageGroupId = shard, and they are buffered in send
 *                 order, a failure holding back the rest of its group.
 *
 * The ingest queues' redrive and retention come from the put handler's
 * hold-back schedule (`lib/sqs/hold-back.ts`): a message refused for a
 * retryable reason comes back with a growing visibility timeout, for up to
 * 7 days before the redrive policy takes it, and is retained 14 days.
 */
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import {
  DeduplicationScope,
  FifoThroughputLimit,
  Queue,
  QueueEncryption,
  type QueuePolicy,
} from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { HOLD_BACK, INGEST_MAX_RECEIVE_COUNT } from '../../lib/sqs/hold-back.js';

/** Batching window of the standard ingest event source: a second of latency buys fuller batches. */
export const INGEST_BATCHING_WINDOW = Duration.seconds(1);

/** Receives before a flush request is parked in its DLQ: enough for throttles and races, few enough to surface poison. */
export const MAX_RECEIVE_COUNT = 5;

/** Retention of the ingest queues: 14 days, SQS's maximum, twice the hold. */
const INGEST_RETENTION = Duration.seconds(HOLD_BACK.retentionSeconds);

/**
 * AWS's rule for an SQS event source: visibility timeout of at least six
 * times the function timeout (plus the batching window), so a message is not
 * handed to a second consumer while retries of the first are still running.
 */
function visibilityTimeoutFor(
  functionTimeout: Duration,
  batchingWindow = Duration.seconds(0),
): Duration {
  return Duration.seconds(6 * functionTimeout.toSeconds() + batchingWindow.toSeconds());
}

/** Props of `Queues`. */
export interface QueuesProps {
  /** What deleting the stack does to the ingest queues and their DLQs (they hold producers' rows). */
  ingestRemovalPolicy: RemovalPolicy;
  /** Timeout of the put function consuming `ingest` and `ingestFifo`. */
  ingestConsumerTimeout: Duration;
  /** Batching window of the `ingest` event source (FIFO sources take none). */
  ingestBatchingWindow: Duration;
  /** Timeout of the flush worker consuming `flush`. */
  flushConsumerTimeout: Duration;
  /** Which ingest queues to create (each with its DLQ); the flush and failures queues always exist. */
  ingest: { standard: boolean; fifo: boolean };
  /** A customer managed key every queue is encrypted with; unset, SSE-SQS. */
  key?: IKey | undefined;
}

/** At-rest encryption of every queue: the app's key, or SSE-SQS (no key for producers to be granted). */
function encryptionOf(key: IKey | undefined) {
  return key
    ? { encryption: QueueEncryption.KMS, encryptionMasterKey: key }
    : { encryption: QueueEncryption.SQS_MANAGED };
}

/** Why a dead-letter queue has no redrive policy (cdk-nag acknowledgements). */
const DLQ_REASON =
  'A dead-letter queue: nothing consumes it and it redrives nowhere; an operator inspects and redrives its messages, and a depth alarm watches it.';

/**
 * A queue nothing consumes: it keeps what failed for an operator, as long as
 * SQS allows. A DLQ is the end of the line: it has no redrive policy of its own.
 */
function deadLetterQueue(
  scope: Construct,
  id: string,
  removalPolicy: RemovalPolicy,
  key: IKey | undefined,
  fifo = false,
): Queue {
  const dlq = new Queue(scope, id, {
    ...encryptionOf(key),
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
    removalPolicy,
    ...(fifo ? { fifo: true } : {}),
  });
  Validations.of(dlq).acknowledge({ id: 'Serverless-SQSRedrivePolicy', reason: DLQ_REASON });
  // The TLS-only policy is the queue's guardrail: it goes or stays with the queue.
  retainPolicyWith(dlq, removalPolicy);
  return dlq;
}

/** The queue's policy (`enforceSSL` writes one, as child `Policy`) gets the queue's removal policy. */
function retainPolicyWith(queue: Queue, removalPolicy: RemovalPolicy): void {
  (queue.node.tryFindChild('Policy') as QueuePolicy | undefined)?.applyRemovalPolicy(removalPolicy);
}

/** How a work queue redrives and how long it keeps messages. */
interface WorkQueueOptions {
  visibilityTimeout: Duration;
  removalPolicy: RemovalPolicy;
  maxReceiveCount: number;
  retentionPeriod?: Duration;
  fifo?: boolean;
  key: IKey | undefined;
}

function workQueue(
  scope: Construct,
  id: string,
  options: WorkQueueOptions,
): { queue: Queue; dlq: Queue } {
  const dlq = deadLetterQueue(scope, `${id}Dlq`, options.removalPolicy, options.key, options.fifo);
  const queue = new Queue(scope, id, {
    ...encryptionOf(options.key),
    enforceSSL: true,
    visibilityTimeout: options.visibilityTimeout,
    deadLetterQueue: { queue: dlq, maxReceiveCount: options.maxReceiveCount },
    removalPolicy: options.removalPolicy,
    ...(options.retentionPeriod ? { retentionPeriod: options.retentionPeriod } : {}),
    ...(options.fifo
      ? {
          fifo: true,
          // Off on purpose: the deduplication id is the put's idempotency key
          // (`lib/sqs/message-key.ts`), kept 24 h, so it must be the
          // producer's statement that two sends are one put, not a hash of
          // the body (two identical puts an hour apart are two puts).
          contentBasedDeduplication: false,
          // High-throughput FIFO: limits and deduplication per group (= per shard).
          deduplicationScope: DeduplicationScope.MESSAGE_GROUP,
          fifoThroughputLimit: FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
        }
      : {}),
  });
  retainPolicyWith(queue, options.removalPolicy);
  return { queue, dlq };
}

/**
 * Ingest (standard and FIFO) and flush queues with their DLQs, and the
 * failures queue. An ingest queue left out (`ingest`) is undefined, and so
 * is its DLQ.
 */
export class Queues extends Construct {
  readonly ingest: Queue | undefined;
  readonly ingestDlq: Queue | undefined;
  /** FIFO ingest: per-shard order through SQS (MessageGroupId = shard). */
  readonly ingestFifo: Queue | undefined;
  readonly ingestFifoDlq: Queue | undefined;
  readonly flush: Queue;
  readonly flushDlq: Queue;
  /**
   * Where a failure with no queue of its own is kept: scheduled invocations
   * (ticker, export, verify) that failed or could not be delivered (the
   * functions' on-failure destination and the schedules' dead-letter queue),
   * and alarm notifications SNS could not deliver.
   */
  readonly failures: Queue;

  constructor(scope: Construct, id: string, props: QueuesProps) {
    super(scope, id);
    const ingestOptions = {
      // Unconsumed and dead-lettered puts are producers' rows: kept by default if the stack goes.
      removalPolicy: props.ingestRemovalPolicy,
      maxReceiveCount: INGEST_MAX_RECEIVE_COUNT,
      retentionPeriod: INGEST_RETENTION,
      key: props.key,
    };
    const ingest = props.ingest.standard
      ? workQueue(this, 'Ingest', {
          ...ingestOptions,
          visibilityTimeout: visibilityTimeoutFor(
            props.ingestConsumerTimeout,
            props.ingestBatchingWindow,
          ),
        })
      : undefined;
    const ingestFifo = props.ingest.fifo
      ? workQueue(this, 'IngestFifo', {
          ...ingestOptions,
          // FIFO event sources take no batching window.
          visibilityTimeout: visibilityTimeoutFor(props.ingestConsumerTimeout),
          fifo: true,
        })
      : undefined;
    // Flush requests carry no rows (the batches are in the table): nothing to keep.
    const flush = workQueue(this, 'Flush', {
      visibilityTimeout: visibilityTimeoutFor(props.flushConsumerTimeout),
      removalPolicy: RemovalPolicy.DESTROY,
      maxReceiveCount: MAX_RECEIVE_COUNT,
      key: props.key,
    });
    this.ingest = ingest?.queue;
    this.ingestDlq = ingest?.dlq;
    this.ingestFifo = ingestFifo?.queue;
    this.ingestFifoDlq = ingestFifo?.dlq;
    this.flush = flush.queue;
    this.flushDlq = flush.dlq;
    // Failure records name the function, the request and the error; no rows.
    this.failures = deadLetterQueue(this, 'Failures', RemovalPolicy.DESTROY, props.key);
    // AwsSolutions-SQS3 recognises a DLQ only by another queue's redrive policy;
    // this one is the DLQ of Lambda destinations, schedules and SNS instead.
    Validations.of(this.failures).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: `${DLQ_REASON} It receives Lambda on-failure records, Scheduler dead letters and undeliverable alarm notifications.`,
    });
  }
}
