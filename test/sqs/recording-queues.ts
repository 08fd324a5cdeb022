/** An in-memory `IngestQueues` that records what the handler asked of the queues. */
import type { SQSRecord } from 'aws-lambda';
import { UnavailableError } from '../../lib/errors.js';
import type { DeadLetterReason, HoldBack, IngestQueues } from '../../lib/sqs/ingest-queues.js';

/** Records dead letters and hold-backs; can be told to fail either. */
export class RecordingQueues implements IngestQueues {
  readonly deadLettered: { record: SQSRecord; reason: DeadLetterReason }[] = [];
  readonly heldBack: { messageId: string; seconds: number }[] = [];
  failDeadLetter = false;
  failHoldBack = false;

  async deadLetter(record: SQSRecord, reason: DeadLetterReason): Promise<void> {
    if (this.failDeadLetter) throw new UnavailableError('dead-letter queue unreachable (test)');
    this.deadLettered.push({ record, reason });
  }

  async holdBack(entries: readonly HoldBack[]): Promise<SQSRecord[]> {
    if (this.failHoldBack) return entries.map((entry) => entry.record);
    for (const { record, seconds } of entries)
      this.heldBack.push({ messageId: record.messageId, seconds });
    return [];
  }
}
