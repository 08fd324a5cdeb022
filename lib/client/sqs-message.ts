/**
 * An SQS put message as the ingest queue's handler reads it: the body
 * `{"shard", "rows", "key"?}` and the producer's Idempotency-Key in the
 * `IdempotencyKey` String attribute. Sizes count as SQS counts them: the
 * body plus each attribute's name, data type and value, in UTF-8 bytes.
 */

/** The message attribute that carries the Idempotency-Key. */
export const IDEMPOTENCY_ATTRIBUTE = 'IdempotencyKey';

const STRING_TYPE = 'String';

/** Bytes SQS counts for a message with `body` and the key attribute `key`. */
export function messageBytes(body: string, key: string): number {
  return Buffer.byteLength(body) + attributeBytes(key);
}

/** Bytes SQS counts for the `IdempotencyKey` attribute holding `key`. */
export function attributeBytes(key: string): number {
  return (
    Buffer.byteLength(IDEMPOTENCY_ATTRIBUTE) +
    Buffer.byteLength(STRING_TYPE) +
    Buffer.byteLength(key)
  );
}
