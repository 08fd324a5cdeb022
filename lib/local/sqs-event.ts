/**
 * Builds the `SQSEvent` the Lambda SQS event source would deliver for
 * messages received from a queue: same record shape, system attributes and
 * message attributes (binary values as base64 strings, as Lambda sends them).
 */
import type { Message, MessageAttributeValue } from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSMessageAttribute, SQSRecord, SQSRecordAttributes } from 'aws-lambda';

/** Where the messages came from. */
export interface QueueSource {
  queueArn: string;
  region: string;
}

const base64 = (bytes: Uint8Array | undefined) =>
  bytes === undefined ? undefined : Buffer.from(bytes).toString('base64');

function messageAttribute(value: MessageAttributeValue): SQSMessageAttribute {
  return {
    dataType: (value.DataType ?? 'String') as SQSMessageAttribute['dataType'],
    stringValue: value.StringValue,
    binaryValue: base64(value.BinaryValue),
    stringListValues: value.StringListValues ?? [],
    binaryListValues: (value.BinaryListValues ?? []).map((bytes) => base64(bytes)!),
  };
}

function systemAttributes(message: Message): SQSRecordAttributes {
  const attributes = message.Attributes ?? {};
  const now = String(Date.now());
  return {
    ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
    SentTimestamp: attributes.SentTimestamp ?? now,
    SenderId: attributes.SenderId ?? '000000000000',
    ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? now,
    ...(attributes.MessageGroupId ? { MessageGroupId: attributes.MessageGroupId } : {}),
    ...(attributes.MessageDeduplicationId
      ? { MessageDeduplicationId: attributes.MessageDeduplicationId }
      : {}),
    ...(attributes.SequenceNumber ? { SequenceNumber: attributes.SequenceNumber } : {}),
  };
}

/** One SQS record of a received message. */
export function toSqsRecord(message: Message, source: QueueSource): SQSRecord {
  const messageAttributes: SQSRecord['messageAttributes'] = {};
  for (const [name, value] of Object.entries(message.MessageAttributes ?? {})) {
    messageAttributes[name] = messageAttribute(value);
  }
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: systemAttributes(message),
    messageAttributes,
    md5OfBody: message.MD5OfBody ?? '',
    ...(message.MD5OfMessageAttributes
      ? { md5OfMessageAttributes: message.MD5OfMessageAttributes }
      : {}),
    eventSource: 'aws:sqs',
    eventSourceARN: source.queueArn,
    awsRegion: source.region,
  };
}

/** The event of a received batch. */
export function toSqsEvent(messages: readonly Message[], source: QueueSource): SQSEvent {
  return { Records: messages.map((message) => toSqsRecord(message, source)) };
}
