/**
 * The idempotency key of an SQS put. The first of these that is present
 * wins:
 *
 *   1. the message's `IdempotencyKey` attribute (String or Number: its text;
 *      Binary: `b64:` + the standard base64 of its bytes);
 *   2. the same attribute inside an SNS envelope (`sns-envelope.ts`);
 *   3. a FIFO message's `MessageDeduplicationId`: SQS deduplicates on it for
 *      five minutes, shardwal for its idempotency window (24 h by default);
 *   4. an SNS envelope's `MessageId` (stable across SNS's delivery retries);
 *   5. the SQS `messageId` (stable across redeliveries of one message).
 *
 * A key is its text: a Binary key and a String key spelled `b64:<same
 * base64>` are the same key. The put path's key rule (1 to 256 printable
 * ASCII characters) applies to every source, so a Binary key holds at most
 * 189 bytes (`b64:` + 252 base64 characters); a longer one, or an attribute
 * of any other type, is refused naming the attribute, never ignored.
 */
import type { SQSRecord } from 'aws-lambda';
import { InvalidInputError } from '../errors.js';
import type { SnsEnvelope } from './sns-envelope.js';

/** Message attribute a producer may set to deduplicate across message ids. */
export const IDEMPOTENCY_ATTRIBUTE = 'IdempotencyKey';

/** Prefix of a key taken from a Binary attribute. */
const BINARY_KEY_PREFIX = 'b64:';

/** Longest key the put path takes (`putRows`). */
const MAX_KEY_CHARS = 256;

/** Longest Binary key value, in bytes, whose `b64:` text fits the key rule. */
export const MAX_BINARY_KEY_BYTES = Math.floor((MAX_KEY_CHARS - BINARY_KEY_PREFIX.length) / 4) * 3;

/** Where a message's key came from. */
export const KeySource = {
  attribute: 'attribute',
  snsAttribute: 'sns-attribute',
  deduplicationId: 'deduplication-id',
  snsMessageId: 'sns-message-id',
  messageId: 'message-id',
} as const;
export type KeySource = (typeof KeySource)[keyof typeof KeySource];

/** A message's key and its source. */
export interface MessageKey {
  key: string;
  source: KeySource;
}

/** The key text of `bytes` given as base64, refused past `MAX_BINARY_KEY_BYTES`. */
function binaryKey(base64: string, field: string): string {
  const bytes = Buffer.from(base64, 'base64');
  if (bytes.length > MAX_BINARY_KEY_BYTES) {
    throw new InvalidInputError(
      field,
      `a Binary key of ${bytes.length} bytes is too long: its key text ${BINARY_KEY_PREFIX}<base64> must fit ${MAX_KEY_CHARS} characters, so at most ${MAX_BINARY_KEY_BYTES} bytes`,
    );
  }
  if (bytes.length === 0) throw new InvalidInputError(field, 'an empty Binary key');
  return `${BINARY_KEY_PREFIX}${bytes.toString('base64')}`;
}

/** The key of an attribute of `type` (`String`, `Number`, `Binary`, or one with a custom suffix). */
function attributeKey(
  type: string,
  text: string | undefined,
  binary: string | undefined,
  field: string,
): string {
  // Custom types (`String.uuid`, `Binary.gz`) keep their base type's value.
  const base = type.split('.')[0];
  if ((base === 'String' || base === 'Number') && text !== undefined && !type.endsWith('.Array')) {
    return text;
  }
  if (base === 'Binary' && binary !== undefined) return binaryKey(binary, field);
  throw new InvalidInputError(
    field,
    `expected a String, Number or Binary attribute, got ${JSON.stringify(type)}${text === undefined && binary === undefined ? ' with no value' : ''}`,
  );
}

/** The idempotency key of `record` (see the module comment). */
export function messageKey(record: SQSRecord, envelope?: SnsEnvelope): MessageKey {
  const field = `messageAttributes.${IDEMPOTENCY_ATTRIBUTE}`;
  const attribute = record.messageAttributes?.[IDEMPOTENCY_ATTRIBUTE];
  if (attribute !== undefined) {
    const key = attributeKey(
      attribute.dataType,
      attribute.stringValue,
      attribute.binaryValue,
      field,
    );
    return { key, source: KeySource.attribute };
  }
  const snsAttribute = envelope?.attributes.get(IDEMPOTENCY_ATTRIBUTE);
  if (snsAttribute !== undefined) {
    const snsField = `SNS MessageAttributes.${IDEMPOTENCY_ATTRIBUTE}`;
    const isBinary = snsAttribute.type.split('.')[0] === 'Binary';
    const key = attributeKey(
      snsAttribute.type,
      isBinary ? undefined : snsAttribute.value,
      isBinary ? snsAttribute.value : undefined,
      snsField,
    );
    return { key, source: KeySource.snsAttribute };
  }
  const deduplicationId = record.attributes?.MessageDeduplicationId;
  if (deduplicationId) return { key: deduplicationId, source: KeySource.deduplicationId };
  if (envelope) return { key: envelope.messageId, source: KeySource.snsMessageId };
  return { key: record.messageId, source: KeySource.messageId };
}
