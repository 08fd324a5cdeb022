/** Sample SQS events from `events/`, as fresh copies, and records derived from them. */
import { readFileSync } from 'node:fs';
import type { SQSEvent, SQSRecord } from 'aws-lambda';

/** Sample files these tests read. */
export const SqsSample = {
  fifoBatch: 'sqs-fifo-batch.json',
  snsEnvelope: 'sqs-sns-envelope.json',
  standardBatch: 'sqs-batch.json',
} as const;
export type SqsSample = (typeof SqsSample)[keyof typeof SqsSample];

/** A fresh copy of a sample event. */
export function sample(file: SqsSample): SQSEvent {
  const url = new URL(`../../events/${file}`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')) as SQSEvent;
}

/** A copy of `record` with `changes` (attributes merged). */
export function withRecord(
  record: SQSRecord,
  changes: Partial<Omit<SQSRecord, 'attributes'>> & {
    attributes?: Partial<SQSRecord['attributes']>;
  },
): SQSRecord {
  const { attributes, ...rest } = changes;
  return {
    ...structuredClone(record),
    ...rest,
    attributes: { ...record.attributes, ...attributes } as SQSRecord['attributes'],
  };
}
