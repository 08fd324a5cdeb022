/**
 * The message the SQS put handler sends to a dead-letter queue: the body
 * exactly as received, the producer's message attributes, and two of its
 * own naming the refusal, so an operator can filter by kind and read why
 * without the logs, and a redrive replays the very same message.
 *
 *   ShardwalRefusalKind   the error kind (`invalid_input`, `key_reused`, …)
 *   ShardwalRefusal       JSON: the message, the source queue and message
 *                         id, the receive count, the attributes not copied
 *
 * SQS allows 10 attributes a message; the producer's are copied in name
 * order up to 8, and any left out are named in `ShardwalRefusal`.
 */
import type { MessageAttributeValue } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import type { DeadLetterReason } from './ingest-queues.js';

/** Names of the attributes the handler adds. */
export const REFUSAL_ATTRIBUTES = {
  kind: 'ShardwalRefusalKind',
  detail: 'ShardwalRefusal',
} as const;

/** SQS's limit of attributes per message. */
const MAX_ATTRIBUTES = 10;
/** Longest refusal message kept (an echo of a bad value is already short). */
const MAX_MESSAGE_CHARS = 2048;

/** What `ShardwalRefusal` holds. */
export interface RefusalDetail {
  message: string;
  sourceQueueArn: string;
  messageId: string;
  receiveCount: number;
  sentTimestamp: string | undefined;
  /** Producer attributes not copied (over SQS's 10). */
  attributesNotCopied?: string[];
}

/** The producer's attribute as the SDK sends it. */
function sdkAttribute(value: SQSRecord['messageAttributes'][string]): MessageAttributeValue {
  const out: MessageAttributeValue = { DataType: value.dataType };
  if (value.stringValue !== undefined) out.StringValue = value.stringValue;
  if (value.binaryValue !== undefined) out.BinaryValue = Buffer.from(value.binaryValue, 'base64');
  return out;
}

/** The body and attributes of the dead-letter message of `record`. */
export function deadLetterMessage(
  record: SQSRecord,
  reason: DeadLetterReason,
): { body: string; attributes: Record<string, MessageAttributeValue> } {
  const names = Object.keys(record.messageAttributes ?? {}).sort();
  const room = MAX_ATTRIBUTES - Object.keys(REFUSAL_ATTRIBUTES).length;
  const attributes: Record<string, MessageAttributeValue> = {};
  for (const name of names.slice(0, room)) {
    attributes[name] = sdkAttribute(record.messageAttributes[name]!);
  }
  const detail: RefusalDetail = {
    message: reason.message.slice(0, MAX_MESSAGE_CHARS),
    sourceQueueArn: record.eventSourceARN,
    messageId: record.messageId,
    receiveCount: Number(record.attributes?.ApproximateReceiveCount ?? 1),
    sentTimestamp: record.attributes?.SentTimestamp,
    ...(names.length > room ? { attributesNotCopied: names.slice(room) } : {}),
  };
  attributes[REFUSAL_ATTRIBUTES.kind] = { DataType: 'String', StringValue: reason.kind };
  attributes[REFUSAL_ATTRIBUTES.detail] = {
    DataType: 'String',
    StringValue: JSON.stringify(detail),
  };
  return { body: record.body, attributes };
}
