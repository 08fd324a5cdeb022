import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../lib/errors.js';
import {
  IDEMPOTENCY_ATTRIBUTE,
  KeySource,
  MAX_BINARY_KEY_BYTES,
  messageKey,
} from '../../lib/sqs/message-key.js';
import { unwrapSns } from '../../lib/sqs/sns-envelope.js';
import { SqsSample, sample, withRecord } from './events.js';

const fifo = () => sample(SqsSample.fifoBatch).Records;
const standard = () => sample(SqsSample.standardBatch).Records;

function attribute(dataType: string, value: { stringValue?: string; binaryValue?: string }) {
  return {
    [IDEMPOTENCY_ATTRIBUTE]: { dataType, stringListValues: [], binaryListValues: [], ...value },
  } as SQSRecord['messageAttributes'];
}

const refused = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    if (error instanceof InvalidInputError) return error;
    throw error;
  }
  throw new Error('expected an InvalidInputError');
};

describe('messageKey', () => {
  describe('precedence', () => {
    it('takes the IdempotencyKey attribute first, over the deduplication id', () => {
      const record = withRecord(fifo()[0]!, {
        messageAttributes: attribute('String', { stringValue: 'explicit-1' }),
      });
      expect(messageKey(record)).toEqual({ key: 'explicit-1', source: KeySource.attribute });
    });

    it("takes a FIFO message's deduplication id when there is no attribute", () => {
      expect(messageKey(fifo()[0]!)).toEqual({
        key: 'orders-o-1-step-1',
        source: KeySource.deduplicationId,
      });
    });

    it('takes the message id of a standard message without the attribute', () => {
      const record = standard()[1]!;
      expect(messageKey(record)).toEqual({ key: record.messageId, source: KeySource.messageId });
    });

    it("takes an SNS envelope's attribute, else its MessageId, before the SQS message id", () => {
      const record = sample(SqsSample.snsEnvelope).Records[0]!;
      const envelope = unwrapSns(record.body)!;
      expect(messageKey(record, envelope)).toEqual({
        key: 'orders-o-2-created',
        source: KeySource.snsAttribute,
      });
      const bare = { ...envelope, attributes: new Map() };
      expect(messageKey(record, bare)).toEqual({
        key: 'dc1e94d9-56c5-5e96-808d-cc7f68faa162',
        source: KeySource.snsMessageId,
      });
      const withAttribute = withRecord(record, {
        messageAttributes: attribute('String', { stringValue: 'sqs-wins' }),
      });
      expect(messageKey(withAttribute, envelope).key).toBe('sqs-wins');
    });
  });

  describe('attribute types', () => {
    it('uses a Binary key as b64: and its standard base64, the same key however it was padded', () => {
      const record = fifo()[2]!;
      expect(messageKey(record)).toEqual({
        key: 'b64:AAECAwQFBgcICQoLDA0ODw==',
        source: KeySource.attribute,
      });
      const same = withRecord(record, {
        messageAttributes: attribute('Binary.custom', { binaryValue: 'AAECAwQFBgcICQoLDA0ODw' }),
      });
      expect(messageKey(same).key).toBe('b64:AAECAwQFBgcICQoLDA0ODw==');
    });

    it('takes Number and custom String types as their text', () => {
      for (const type of ['Number', 'Number.int', 'String.uuid']) {
        const record = withRecord(standard()[0]!, {
          messageAttributes: attribute(type, { stringValue: '42' }),
        });
        expect(messageKey(record).key).toBe('42');
      }
    });

    it(`accepts a Binary key of ${MAX_BINARY_KEY_BYTES} bytes and refuses one byte more, naming the attribute`, () => {
      const at = (bytes: number) =>
        withRecord(standard()[0]!, {
          messageAttributes: attribute('Binary', {
            binaryValue: Buffer.alloc(bytes, 7).toString('base64'),
          }),
        });
      expect(messageKey(at(MAX_BINARY_KEY_BYTES)).key).toHaveLength(256);
      const error = refused(() => messageKey(at(MAX_BINARY_KEY_BYTES + 1)));
      expect(error.field).toBe('messageAttributes.IdempotencyKey');
      expect(error.message).toBe(
        'messageAttributes.IdempotencyKey: a Binary key of 190 bytes is too long: its key text b64:<base64> must fit 256 characters, so at most 189 bytes',
      );
    });

    it('refuses an attribute it cannot read as a key, never falling back to another source', () => {
      for (const [type, value] of [
        ['String.Array', { stringValue: '["a"]' }],
        ['Binary', {}],
        ['Blob', { stringValue: 'x' }],
      ] as const) {
        const record = withRecord(fifo()[0]!, { messageAttributes: attribute(type, value) });
        expect(refused(() => messageKey(record)).field).toBe('messageAttributes.IdempotencyKey');
      }
    });

    it('refuses an SNS String.Array key naming the envelope attribute', () => {
      const record = sample(SqsSample.snsEnvelope).Records[0]!;
      const envelope = unwrapSns(record.body)!;
      const arrays = {
        ...envelope,
        attributes: new Map([[IDEMPOTENCY_ATTRIBUTE, { type: 'String.Array', value: '["a"]' }]]),
      };
      expect(refused(() => messageKey(record, arrays)).field).toBe(
        'SNS MessageAttributes.IdempotencyKey',
      );
    });
  });
});
