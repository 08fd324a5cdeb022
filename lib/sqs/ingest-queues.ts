/**
 * What the SQS put handler does to the ingest queues besides reading them:
 * send a message that can never succeed to the dead-letter queue with the
 * reason, and hold a message that may succeed later out of sight for a
 * while. An interface, so the handler is tested in process (a recording
 * fake) and the SQS adapter (`sqs-ingest-queues.ts`) is the only code that
 * sees the SDK and its errors.
 */
import type { SQSRecord } from 'aws-lambda';
import type { ErrorKind } from '../errors.js';

/** Why a message goes to the dead-letter queue. */
export interface DeadLetterReason {
  kind: ErrorKind;
  /** The refusal's message: names the field or header and the problem. */
  message: string;
}

/** One message to hold back. */
export interface HoldBack {
  record: SQSRecord;
  /** Visibility timeout to set, from now. */
  seconds: number;
}

/** The handler's actions on the queues a batch came from. */
export interface IngestQueues {
  /**
   * Sends `record` as received (body and attributes) to its queue's
   * dead-letter queue, with `reason` as message attributes. Throws
   * UnavailableError when it could not, so the message is retried instead.
   */
  deadLetter(record: SQSRecord, reason: DeadLetterReason): Promise<void>;
  /** Sets each message's visibility timeout; resolves with the ones that could not be set. */
  holdBack(entries: readonly HoldBack[]): Promise<SQSRecord[]>;
}

/** True when `record` came from a FIFO queue: its event source ARN ends in `.fifo`. */
export function isFifoRecord(record: Pick<SQSRecord, 'eventSourceARN'>): boolean {
  return record.eventSourceARN.endsWith('.fifo');
}

/** The queue name at the end of an SQS ARN (`arn:aws:sqs:<region>:<account>:<name>`). */
export function queueNameOfArn(arn: string): string {
  return arn.slice(arn.lastIndexOf(':') + 1);
}

/** The queue name at the end of an SQS queue URL (`https://…/<account>/<name>`). */
export function queueNameOfUrl(url: string): string {
  return url.slice(url.replace(/\/+$/, '').lastIndexOf('/') + 1).replace(/\/+$/, '');
}
