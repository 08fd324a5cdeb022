import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../lib/errors.js';
import { unwrapSns } from '../../lib/sqs/sns-envelope.js';
import { SqsSample, sample } from './events.js';

describe('unwrapSns', () => {
  it('reads the sample Notification: its Message exactly, its id, topic and attributes', () => {
    const body = sample(SqsSample.snsEnvelope).Records[0]!.body;
    const envelope = unwrapSns(body);
    expect(envelope).toEqual({
      messageId: 'dc1e94d9-56c5-5e96-808d-cc7f68faa162',
      topicArn: 'arn:aws:sns:us-east-1:123456789012:orders-events',
      message: '{"shard":"orders","rows":[{"orderId":"o-2","total":12345678901234567890}]}',
      attributes: new Map([['IdempotencyKey', { type: 'String', value: 'orders-o-2-created' }]]),
    });
  });

  it('is undefined for a put body, even one whose rows mention TopicArn', () => {
    expect(unwrapSns('{"shard":"a","rows":[{"x":1}]}')).toBeUndefined();
    expect(
      unwrapSns('{"shard":"a","rows":[{"TopicArn":"t","Type":"Notification"}]}'),
    ).toBeUndefined();
    expect(unwrapSns('{"TopicArn": "t", "Type": ')).toBeUndefined();
  });

  it('refuses a subscription confirmation, naming its Type', () => {
    const body = JSON.stringify({
      Type: 'SubscriptionConfirmation',
      MessageId: 'm',
      TopicArn: 'arn:aws:sns:us-east-1:123456789012:t',
      Message: 'You have chosen to subscribe',
    });
    expect(() => unwrapSns(body)).toThrow(InvalidInputError);
    expect(() => unwrapSns(body)).toThrow(/^body\.Type: an SNS "SubscriptionConfirmation" message/);
  });

  it('refuses a Notification without its Message', () => {
    const body = JSON.stringify({ Type: 'Notification', MessageId: 'm', TopicArn: 't' });
    expect(() => unwrapSns(body)).toThrow(/^body: an SNS Notification from t without Message$/);
  });

  it('keeps escapes and astral characters of the Message exactly', () => {
    const message = '{"shard":"a","rows":[{"s":"\\ud83d\\ude00 \u{1F600} \\u00e9"}]}';
    const body = JSON.stringify({
      Type: 'Notification',
      MessageId: 'm',
      TopicArn: 't',
      Message: message,
    });
    expect(unwrapSns(body)?.message).toBe(message);
  });
});
