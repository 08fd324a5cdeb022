import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { HANDLERS, type HandlerName } from '../../infra/constructs/functions.js';
import { logicalIdOf } from '../../infra/constructs/nag.js';
import { functionId, type Synthesized, synth } from './support.js';

let s: Synthesized;
beforeAll(() => {
  s = synth({ flushIntervalMs: '10000' });
});

const resource = (id: string) => s.template.toJSON().Resources[id];

describe('ShardwalStack', () => {
  describe('table', () => {
    it('is on demand, with PITR, deletion protection, KMS encryption, TTL and the pending GSI', () => {
      s.template.resourceCountIs('AWS::DynamoDB::Table', 1);
      s.template.hasResourceProperties('AWS::DynamoDB::Table', {
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        DeletionProtectionEnabled: true,
        SSESpecification: { SSEEnabled: true },
        TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
        GlobalSecondaryIndexes: [
          {
            IndexName: 'pending',
            KeySchema: [
              { AttributeName: 'pendingPk', KeyType: 'HASH' },
              { AttributeName: 'pendingShard', KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'KEYS_ONLY' },
          },
        ],
      });
    });

    it('is retained when the stack is deleted', () => {
      s.template.hasResource('AWS::DynamoDB::Table', {
        DeletionPolicy: 'Retain',
        UpdateReplacePolicy: 'Retain',
      });
    });
  });

  describe('bucket', () => {
    const dataBucket = () => resource(logicalIdOf(s.stack.storage.bucket));

    it('blocks public access, encrypts, versions, logs access and is retained', () => {
      const b = dataBucket();
      expect(b.DeletionPolicy).toBe('Retain');
      expect(b.Properties).toMatchObject({
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [
            { ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } },
          ],
        },
        VersioningConfiguration: { Status: 'Enabled' },
        OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
        LoggingConfiguration: {
          DestinationBucketName: { Ref: logicalIdOf(s.stack.storage.accessLogBucket) },
        },
      });
    });

    it('never expires or transitions a current object; only housekeeping of uploads and old versions', () => {
      const rules = dataBucket().Properties.LifecycleConfiguration.Rules as Record<
        string,
        unknown
      >[];
      expect(rules).toEqual([
        {
          Id: 'housekeeping',
          Status: 'Enabled',
          AbortIncompleteMultipartUpload: { DaysAfterInitiation: 7 },
          NoncurrentVersionExpiration: { NoncurrentDays: 30 },
          ExpiredObjectDeleteMarker: true,
        },
      ]);
    });

    it('denies every request without TLS 1.2', () => {
      s.template.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: logicalIdOf(s.stack.storage.bucket) },
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Action: 's3:*',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
            Match.objectLike({
              Effect: 'Deny',
              Action: 's3:*',
              Condition: { NumericLessThan: { 's3:TlsVersion': 1.2 } },
            }),
          ]),
        },
      });
    });
  });

  describe('queues', () => {
    const queue = (q: Parameters<typeof logicalIdOf>[0]) => resource(logicalIdOf(q)).Properties;

    it('redrives ingest and flush messages to their own DLQ after 5 receives', () => {
      const { ingest, ingestDlq, flush, flushDlq } = s.stack.queues;
      expect(queue(ingest).RedrivePolicy).toEqual({
        deadLetterTargetArn: { 'Fn::GetAtt': [logicalIdOf(ingestDlq), 'Arn'] },
        maxReceiveCount: 5,
      });
      expect(queue(flush).RedrivePolicy).toEqual({
        deadLetterTargetArn: { 'Fn::GetAtt': [logicalIdOf(flushDlq), 'Arn'] },
        maxReceiveCount: 5,
      });
    });

    it('encrypts every queue and denies non-TLS access to each', () => {
      s.template.resourceCountIs('AWS::SQS::Queue', 4);
      for (const q of Object.values(s.template.findResources('AWS::SQS::Queue'))) {
        expect(q.Properties.SqsManagedSseEnabled).toBe(true);
      }
      const policies = Object.values(s.template.findResources('AWS::SQS::QueuePolicy'));
      expect(policies).toHaveLength(4);
      for (const p of policies) {
        expect(JSON.stringify(p.Properties.PolicyDocument)).toContain(
          '"aws:SecureTransport":"false"',
        );
      }
    });

    it('sets visibility timeouts of at least six times the consumer timeout', () => {
      const fnTimeout = (name: HandlerName) =>
        resource(functionId(s, name)).Properties.Timeout as number;
      expect(queue(s.stack.queues.ingest).VisibilityTimeout).toBeGreaterThanOrEqual(
        6 * fnTimeout('putSqs'),
      );
      expect(queue(s.stack.queues.flush).VisibilityTimeout).toBeGreaterThanOrEqual(
        6 * fnTimeout('flushWorker'),
      );
    });

    it('keeps queues holding producers rows when the stack is deleted', () => {
      expect(resource(logicalIdOf(s.stack.queues.ingest)).DeletionPolicy).toBe('Retain');
      expect(resource(logicalIdOf(s.stack.queues.ingestDlq)).DeletionPolicy).toBe('Retain');
    });
  });

  describe('event sources', () => {
    it('feeds put-sqs from ingest and flush-worker from flush, both with partial batch responses', () => {
      const mappings = Object.values(s.template.findResources('AWS::Lambda::EventSourceMapping'));
      const bySource = Object.fromEntries(
        mappings.map((m) => [m.Properties.EventSourceArn['Fn::GetAtt'][0], m.Properties]),
      );
      expect(bySource[logicalIdOf(s.stack.queues.ingest)]).toMatchObject({
        FunctionName: { Ref: functionId(s, 'putSqs') },
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
      expect(bySource[logicalIdOf(s.stack.queues.flush)]).toMatchObject({
        FunctionName: { Ref: functionId(s, 'flushWorker') },
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
      expect(mappings).toHaveLength(2);
    });
  });

  describe('functions', () => {
    it('runs all seven on Node 24, arm64, with their own log group kept a month', () => {
      s.template.resourceCountIs('AWS::Lambda::Function', Object.keys(HANDLERS).length);
      for (const name of Object.keys(HANDLERS) as HandlerName[]) {
        const p = resource(functionId(s, name)).Properties;
        expect(p).toMatchObject({ Runtime: 'nodejs24.x', Architectures: ['arm64'] });
        const logGroup = resource(p.LoggingConfig.LogGroup.Ref);
        expect(logGroup.Properties.RetentionInDays).toBe(30);
      }
    });

    it('sizes each function for its work', () => {
      const size = (name: HandlerName) => {
        const p = resource(functionId(s, name)).Properties;
        return [p.MemorySize, p.Timeout];
      };
      // 10 s interval: the default durable wait is 25 s, plus a 4 s margin.
      expect(size('putHttp')).toEqual([512, 29]);
      expect(size('putSqs')).toEqual([512, 30]);
      expect(size('statusHttp')).toEqual([256, 10]);
      expect(size('flushTick')).toEqual([1024, 90]);
      expect(size('flushWorker')).toEqual([1024, 120]);
      expect(size('export')).toEqual([2048, 900]);
      expect(size('recover')).toEqual([2048, 900]);
    });

    it('gives every function the resource names, the interval and the Powertools settings', () => {
      for (const name of Object.keys(HANDLERS) as HandlerName[]) {
        expect(resource(functionId(s, name)).Properties.Environment.Variables).toEqual({
          SHARDWAL_TABLE: { Ref: logicalIdOf(s.stack.storage.table) },
          SHARDWAL_BUCKET: { Ref: logicalIdOf(s.stack.storage.bucket) },
          SHARDWAL_FLUSH_QUEUE_URL: { Ref: logicalIdOf(s.stack.queues.flush) },
          SHARDWAL_FLUSH_INTERVAL_MS: '10000',
          POWERTOOLS_SERVICE_NAME: 'shardwal',
          POWERTOOLS_METRICS_NAMESPACE: 'shardwal',
          NODE_OPTIONS: '--enable-source-maps',
        });
      }
    });

    it('scales flusher memory with flush concurrency and WAL object size', () => {
      const big = synth({ flushConcurrency: 16, maxWalObjectBytes: 64 * 1024 * 1024 });
      // 3 × 16 × 64 MiB + 256 MiB baseline.
      expect(
        big.template.toJSON().Resources[functionId(big, 'flushTick')].Properties.MemorySize,
      ).toBe(3328);
      expect(
        big.template.toJSON().Resources[functionId(big, 'flushTick')].Properties.Environment
          .Variables,
      ).toMatchObject({
        SHARDWAL_FLUSH_CONCURRENCY: '16',
        SHARDWAL_MAX_WAL_OBJECT_BYTES: '67108864',
      });
    });
  });
});
