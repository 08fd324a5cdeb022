/**
 * `ShardwalService` with parts left out (the HTTP API, each SQS ingest
 * queue) and with the app's customer managed KMS key: what is synthesized,
 * what `grantProduce` grants, and the key policy that lets CloudWatch alarms
 * publish to the encrypted topic. cdk-nag runs on each.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AccountRootPrincipal, Role } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { describe, expect, it } from 'vitest';
import { ALARM_KEY_SID, KEY_USE_ACTIONS, SNS_DLQ_KEY_SID } from '../../infra/constructs/key-use.js';
import { logicalIdOf } from '../../infra/constructs/nag.js';
import type { ShardwalServiceProps } from '../../infra/service-props.js';
import { ShardwalService } from '../../infra/shardwal-service.js';
import { actionsOf, INLINE_CODE, nagReport, type Statement, statementsOfRole } from './support.js';

/** One service in its own app, a producer role granted, the checks' findings. */
function build(props: (stack: Stack) => ShardwalServiceProps) {
  const app = new App();
  const stack = new Stack(app, 'Ingest', { env: { account: '123456789012', region: 'eu-west-1' } });
  const service = new ShardwalService(stack, 'S', {
    alarmEmail: 'oncall@example.com',
    ...props(stack),
    functionCode: INLINE_CODE,
  });
  const producer = new Role(stack, 'Producer', { assumedBy: new AccountRootPrincipal() });
  service.grantProduce(producer, { shards: ['orders-*'] });
  const template = Template.fromStack(stack);
  const resources = template.toJSON().Resources as Record<
    string,
    { Type: string; Properties: Record<string, unknown> }
  >;
  const ofType = (type: string) => Object.values(resources).filter((r) => r.Type === type);
  return {
    app,
    service,
    template,
    ofType,
    producerStatements: statementsOfRole(template, logicalIdOf(producer)),
  };
}

const descriptions = (fns: { Properties: Record<string, unknown> }[]) =>
  fns.map((f) => f.Properties.Description).sort();

describe('ShardwalService', () => {
  describe('with the HTTP API left out', () => {
    const s = build(() => ({ httpApi: false }));

    it('synthesizes no API, no put-http or status-http function and no role for them', () => {
      expect(s.ofType('AWS::ApiGatewayV2::Api')).toEqual([]);
      expect(descriptions(s.ofType('AWS::Lambda::Function'))).toEqual(
        [
          'shardwal export',
          'shardwal flush-tick',
          'shardwal flush-worker',
          'shardwal put-sqs',
          'shardwal recover',
        ].sort(),
      );
      const lambdaRoles = s
        .ofType('AWS::IAM::Role')
        .filter((r) => JSON.stringify(r.Properties).includes('lambda.amazonaws.com'));
      expect(lambdaRoles).toHaveLength(5);
      expect(s.service.outputs().ApiUrl).toBeUndefined();
      expect(JSON.stringify(s.ofType('AWS::CloudWatch::Alarm'))).not.toContain('AWS/ApiGateway');
    });

    it('grants producers the ingest queues only, no route', () => {
      const actions = actionsOf(s.producerStatements);
      expect(actions).toContain('sqs:SendMessage');
      expect(actions).not.toContain('execute-api:Invoke');
    });

    it('leaves no unacknowledged finding', () => {
      expect(nagReport(s.app)).toEqual([]);
    });
  });

  describe('with the standard SQS ingest queue left out', () => {
    const s = build(() => ({ sqsIngest: false }));

    it('synthesizes the FIFO queue and its DLQ only, with one event source on put-sqs', () => {
      expect(s.service.queues.ingest).toBeUndefined();
      expect(s.service.queues.ingestDlq).toBeUndefined();
      const fifo = s.ofType('AWS::SQS::Queue').filter((q) => q.Properties.FifoQueue === true);
      // ingest, flush and failures queues with DLQs: FIFO + DLQ, flush + DLQ, failures.
      expect(fifo).toHaveLength(2);
      expect(s.ofType('AWS::SQS::Queue')).toHaveLength(5);
      const sources = s.ofType('AWS::Lambda::EventSourceMapping');
      expect(sources).toHaveLength(2); // the FIFO ingest queue, the flush queue
      const env = JSON.stringify(s.ofType('AWS::Lambda::Function'));
      expect(env).not.toContain('SHARDWAL_INGEST_QUEUE_URL');
      expect(env).toContain('SHARDWAL_INGEST_FIFO_QUEUE_URL');
    });

    it('grants producers the FIFO queue and the routes, nothing for the absent queue', () => {
      const sqs = s.producerStatements.filter((st) => actionsOf([st]).includes('sqs:SendMessage'));
      expect(sqs).toHaveLength(1);
      expect(JSON.stringify(sqs[0]!.Resource)).toContain(logicalIdOf(s.service.queues.ingestFifo!));
      expect(actionsOf(s.producerStatements)).toContain('execute-api:Invoke');
    });

    it('has no alarm on the absent queue', () => {
      expect(Object.keys(s.template.findResources('AWS::CloudWatch::Alarm')).join()).not.toMatch(
        /AlarmsingestDlqDepth|AlarmsIngestQueueAge/,
      );
    });

    it('leaves no unacknowledged finding', () => {
      expect(nagReport(s.app)).toEqual([]);
    });
  });

  describe('with both SQS ingest queues left out', () => {
    const s = build(() => ({ sqsIngest: false, fifoIngest: false }));

    it('synthesizes no put-sqs, no ingest queue, and grants producers the routes only', () => {
      expect(descriptions(s.ofType('AWS::Lambda::Function'))).not.toContain('shardwal put-sqs');
      expect(s.ofType('AWS::SQS::Queue')).toHaveLength(3); // flush + DLQ, failures
      const actions = actionsOf(s.producerStatements);
      expect(actions).toEqual(['execute-api:Invoke']);
      expect(s.service.outputs().IngestFifoQueueUrl).toBeUndefined();
      expect(JSON.stringify(s.ofType('AWS::CloudWatch::Alarm'))).not.toContain('IngestHeldBack');
    });

    it('leaves no unacknowledged finding', () => {
      expect(nagReport(s.app)).toEqual([]);
    });
  });

  describe('with a customer managed key', () => {
    let key: Key;
    const s = build((stack) => {
      key = new Key(stack, 'DataKey', { enableKeyRotation: true });
      return { key };
    });
    const keyRef = () => ({ 'Fn::GetAtt': [logicalIdOf(key), 'Arn'] });

    it('encrypts the table, the data bucket, every queue and the alarm topic with it', () => {
      const [table] = s.ofType('AWS::DynamoDB::Table');
      expect(table!.Properties.SSESpecification).toEqual({
        KMSMasterKeyId: keyRef(),
        SSEEnabled: true,
        SSEType: 'KMS',
      });
      const data = s.ofType('AWS::S3::Bucket').find((b) => b.Properties.VersioningConfiguration);
      expect(data!.Properties.BucketEncryption).toEqual({
        ServerSideEncryptionConfiguration: [
          {
            BucketKeyEnabled: true,
            ServerSideEncryptionByDefault: { KMSMasterKeyID: keyRef(), SSEAlgorithm: 'aws:kms' },
          },
        ],
      });
      const queues = s.ofType('AWS::SQS::Queue');
      expect(queues).toHaveLength(7);
      for (const q of queues) expect(q.Properties.KmsMasterKeyId).toEqual(keyRef());
      const [topic] = s.ofType('AWS::SNS::Topic');
      expect(topic!.Properties.KmsMasterKeyId).toEqual(keyRef());
    });

    it("lets CloudWatch use the key, so alarms reach the encrypted topic, and SNS dead-letter the topic's mail", () => {
      const [policy] = s.ofType('AWS::KMS::Key').map((k) => k.Properties.KeyPolicy) as {
        Statement: (Statement & { Sid?: string; Principal: unknown })[];
      }[];
      const alarms = policy!.Statement.find((st) => st.Sid === ALARM_KEY_SID);
      expect(alarms).toMatchObject({
        Effect: 'Allow',
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
      });
      const sns = policy!.Statement.find((st) => st.Sid === SNS_DLQ_KEY_SID);
      expect(sns).toMatchObject({
        Principal: { Service: 'sns.amazonaws.com' },
        Action: ['kms:Decrypt', 'kms:GenerateDataKey'],
      });
      // Topics of this account and region (arn:<partition>:sns:eu-west-1:123456789012:*).
      expect(JSON.stringify(sns!.Condition)).toMatch(
        /^\{"ArnLike":\{"aws:SourceArn":.*:sns:eu-west-1:123456789012:\*"\]\]\}\}\}$/,
      );
    });

    it('lets every function, each schedule role and producers use the key, by named actions', () => {
      for (const fn of Object.values(s.service.functions.byName)) {
        const statements = statementsOfRole(s.template, logicalIdOf(fn.role!));
        const onKey = statements.filter((st) =>
          JSON.stringify(st.Resource).includes(logicalIdOf(key)),
        );
        expect(actionsOf(onKey)).toEqual(expect.arrayContaining([...KEY_USE_ACTIONS]));
      }
      // Scheduler dead-letters a failed invoke with the schedule's role: it must encrypt for the failures queue.
      const scheduleRoles = Object.entries(s.template.findResources('AWS::IAM::Role')).filter(
        ([, r]) => JSON.stringify(r.Properties).includes('scheduler.amazonaws.com'),
      );
      expect(scheduleRoles.length).toBeGreaterThanOrEqual(3);
      for (const [id] of scheduleRoles) {
        const onKey = statementsOfRole(s.template, id).filter((st) =>
          JSON.stringify(st.Resource).includes(logicalIdOf(key)),
        );
        expect(actionsOf(onKey).sort(), id).toEqual(['kms:Decrypt', 'kms:GenerateDataKey']);
      }
      const producerKey = s.producerStatements.filter((st) =>
        JSON.stringify(st.Resource).includes(logicalIdOf(key)),
      );
      expect(actionsOf(producerKey).sort()).toEqual(['kms:Decrypt', 'kms:GenerateDataKey']);
      expect(
        JSON.stringify(
          s.template.toJSON().Resources[logicalIdOf(s.service.readers.policy)].Properties,
        ),
      ).toContain('kms:Decrypt');
    });

    it('leaves no unacknowledged finding', () => {
      expect(nagReport(s.app)).toEqual([]);
    });
  });
});
