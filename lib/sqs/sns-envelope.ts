/**
 * SNS-to-SQS fan-in. A topic subscribed to the ingest queue without raw
 * message delivery wraps each message in its JSON envelope (SNS "raw message
 * delivery" in the SNS developer guide): `{"Type":"Notification",
 * "MessageId", "TopicArn", "Message": "<the published text>",
 * "MessageAttributes"?: {name: {"Type", "Value"}}, ...}`. The put path
 * accepts both forms, because producers who fan in through SNS rarely
 * control the subscription, and the two cannot be confused: a put body has
 * exactly `shard`, `rows` and `key`, an envelope none of them.
 *
 * The envelope is read exactly (`parseExact`), and its `Message` is the put
 * body, read as if it were the SQS body. The envelope's `MessageId` stays
 * the same when SNS retries a delivery, so it identifies the put better than
 * the SQS message id (`message-key.ts`). Any other SNS `Type` (a
 * subscription confirmation) is refused, naming it.
 */
import { InvalidInputError } from '../errors.js';
import { BomPolicy, parseExact } from '../json/exact-parse.js';
import { type ExactObject, type ExactValue, memberOf } from '../json/exact-tree.js';

/** An SNS message attribute as the envelope carries it. */
interface SnsAttribute {
  /** `String`, `Number`, `Binary` (Value is base64) or `String.Array`. */
  type: string;
  value: string;
}

/** A Notification envelope. */
export interface SnsEnvelope {
  messageId: string;
  topicArn: string;
  /** The published message: the put body. */
  message: string;
  attributes: ReadonlyMap<string, SnsAttribute>;
}

/** The SNS `Type` of a published message. */
const NOTIFICATION = 'Notification';

function stringMember(object: ExactObject, name: string): string | undefined {
  const value = memberOf(object, name);
  return value?.kind === 'string' ? value.value : undefined;
}

function attributesOf(value: ExactValue | undefined): Map<string, SnsAttribute> {
  const attributes = new Map<string, SnsAttribute>();
  if (value?.kind !== 'object') return attributes;
  for (const [name, attribute] of value.members) {
    if (attribute.kind !== 'object') continue;
    const type = stringMember(attribute, 'Type');
    const text = stringMember(attribute, 'Value');
    if (type !== undefined && text !== undefined) attributes.set(name, { type, value: text });
  }
  return attributes;
}

/**
 * The envelope in `body`, or undefined when `body` is not one (then it is a
 * put body, or bad input the put path names). Throws InvalidInputError for
 * an SNS message that is not a Notification, or one without its Message.
 */
export function unwrapSns(body: string): SnsEnvelope | undefined {
  // Cheap test first: every envelope names its topic; a put body never does.
  if (!body.includes('"TopicArn"')) return undefined;
  let root: ExactValue;
  try {
    root = parseExact(body, { root: 'body', bom: BomPolicy.ignore, maxDepth: 4 }).root;
  } catch {
    return undefined;
  }
  if (root.kind !== 'object') return undefined;
  const type = stringMember(root, 'Type');
  const topicArn = stringMember(root, 'TopicArn');
  if (type === undefined || topicArn === undefined) return undefined;
  if (type !== NOTIFICATION) {
    throw new InvalidInputError(
      'body.Type',
      `an SNS ${JSON.stringify(type)} message from ${topicArn} is not a put; only Notification envelopes carry one (SNS-to-SQS subscriptions need no confirmation)`,
    );
  }
  const message = stringMember(root, 'Message');
  const messageId = stringMember(root, 'MessageId');
  if (message === undefined || messageId === undefined) {
    throw new InvalidInputError(
      'body',
      `an SNS Notification from ${topicArn} without ${message === undefined ? 'Message' : 'MessageId'}`,
    );
  }
  return {
    messageId,
    topicArn,
    message,
    attributes: attributesOf(memberOf(root, 'MessageAttributes')),
  };
}
