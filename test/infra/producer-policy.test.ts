/**
 * The producer policy is enough for every producer path the project ships:
 * the SQS actions the real `createSqsProducer` sends (as `shardwal put --sqs`
 * runs it: no `maxMessageBytes`) are each allowed on both ingest queues.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { logicalIdOf } from '../../infra/constructs/nag.js';
import { createSqsProducer } from '../../lib/client/sqs-producer.js';
import { actionsOf, type Statement, type Synthesized, synth } from './support.js';

/** IAM authorizes `SendMessageBatch` as `SendMessage`; every other action has its command's name. */
const IAM_ACTION_OF: Record<string, string> = { SendMessageBatch: 'sqs:SendMessage' };

/** The SQS actions a producer sends while putting `rows` rows, recorded from the real client code. */
async function actionsSentByProducer(queueUrl: string, rows: number): Promise<string[]> {
  const sent = new Set<string>();
  const send = async (command: { input: { Entries?: { Id: string }[] } }) => {
    const name = command.constructor.name.replace(/Command$/, '');
    sent.add(IAM_ACTION_OF[name] ?? `sqs:${name}`);
    if (name === 'GetQueueAttributes') return { Attributes: { MaximumMessageSize: '262144' } };
    const entries = command.input.Entries ?? [];
    return { Successful: entries.map((e) => ({ Id: e.Id, MessageId: `m-${e.Id}` })), Failed: [] };
  };
  const producer = await createSqsProducer({
    sqs: { send } as unknown as SQSClient,
    queueUrl,
    shard: 'orders',
  });
  for (let i = 0; i < rows; i++) await producer.append({ i });
  await producer.close();
  return [...sent].sort();
}

let s: Synthesized;
beforeAll(() => {
  s = synth({});
});

/** The producer policy's statements. */
function producerStatements(): Statement[] {
  const policy = s.template.toJSON().Resources[logicalIdOf(s.service.producers.policy!)];
  return policy.Properties.PolicyDocument.Statement as Statement[];
}

describe('ProducerPolicy', () => {
  for (const [name, queueUrl] of [
    ['standard', 'https://sqs.eu-west-1.amazonaws.com/123456789012/ingest'],
    ['FIFO', 'https://sqs.eu-west-1.amazonaws.com/123456789012/ingest.fifo'],
  ] as const) {
    it(`allows every SQS action the SQS producer sends to the ${name} ingest queue`, async () => {
      const queue = name === 'FIFO' ? s.service.queues.ingestFifo! : s.service.queues.ingest!;
      const arn = JSON.stringify({ 'Fn::GetAtt': [logicalIdOf(queue), 'Arn'] });
      const allowed = producerStatements()
        .filter((st) => JSON.stringify(st.Resource).includes(arn))
        .flatMap((st) => actionsOf([st]));
      const sent = await actionsSentByProducer(queueUrl, 3);
      expect(sent).toContain('sqs:SendMessage');
      for (const action of sent) expect(allowed, action).toContain(action);
    });
  }
});
