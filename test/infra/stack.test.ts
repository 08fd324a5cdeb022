import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { HandlerName } from '../../infra/constructs/functions.js';
import { IMMUTABLE_KEY_PATTERNS } from '../../infra/constructs/key-patterns.js';
import { logicalIdOf } from '../../infra/constructs/nag.js';
import { SPILL_LIFECYCLE_DAYS } from '../../lib/memtable/spill.js';
import { holdBackSeconds, INGEST_MAX_RECEIVE_COUNT } from '../../lib/sqs/hold-back.js';
import { DEFAULT_HANDLERS, functionId, type Synthesized, synth } from './support.js';

let s: Synthesized;
beforeAll(() => {
  s = synth({ flushIntervalMs: '10000' });
});

const resource = (id: string) => s.template.toJSON().Resources[id];

describe('ShardwalService', () => {
  describe('table', () => {
    it('is on demand, with PITR, deletion protection, KMS encryption, TTL, the pending and registry GSIs', () => {
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
          {
            IndexName: 'registry',
            KeySchema: [
              { AttributeName: 'registryPk', KeyType: 'HASH' },
              { AttributeName: 'registryShard', KeyType: 'RANGE' },
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
    const dataBucket = () => resource(logicalIdOf(s.service.storage.bucket));

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
          DestinationBucketName: { Ref: logicalIdOf(s.service.storage.accessLogBucket!) },
        },
      });
    });

    it('expires only spilled payloads (4 days, their old versions after 1); elsewhere only housekeeping of uploads and old versions', () => {
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
        {
          // S3 applies the shorter of two overlapping expirations: 1 day, not 30, under spill/.
          Id: 'expire-spilled-payloads',
          Status: 'Enabled',
          Prefix: 'spill/',
          ExpirationInDays: SPILL_LIFECYCLE_DAYS,
          NoncurrentVersionExpiration: { NoncurrentDays: 1 },
        },
      ]);
      expect(SPILL_LIFECYCLE_DAYS).toBe(4);
      // No other rule expires a current object: WAL objects and exports stay.
      expect(rules.filter((r) => r.ExpirationInDays !== undefined)).toHaveLength(1);
    });

    it('keeps the spill lifecycle rule whether spilling is on or off: orphans of an earlier threshold still expire', () => {
      const off = synth({ spillBytes: 'off' });
      const rules = off.template.toJSON().Resources[logicalIdOf(off.service.storage.bucket)]
        .Properties.LifecycleConfiguration.Rules as { Id: string }[];
      expect(rules.map((r) => r.Id)).toEqual(['housekeeping', 'expire-spilled-payloads']);
    });

    it('denies every principal a PutObject to WAL, export, segment, snapshot, spill or table keys without If-None-Match, parts exempt', () => {
      const policy = Object.values(s.template.findResources('AWS::S3::BucketPolicy')).find(
        (p) => p.Properties.Bucket.Ref === logicalIdOf(s.service.storage.bucket),
      )!;
      const statements = policy.Properties.PolicyDocument.Statement as Record<string, unknown>[];
      const deny = statements.find((st) => st.Sid === 'DenyOverwriteOfImmutableKeys');
      const objects = (pattern: string) => ({
        'Fn::Join': [
          '',
          [{ 'Fn::GetAtt': [logicalIdOf(s.service.storage.bucket), 'Arn'] }, `/${pattern}`],
        ],
      });
      expect(deny).toEqual({
        Sid: 'DenyOverwriteOfImmutableKeys',
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Action: 's3:PutObject',
        // The CDK sorts a statement's resources (minimizePolicies).
        Resource: expect.arrayContaining([
          ...['wal', 'aof', 'manifest', 'seg', 'snap'].map((kind) => objects(`shards/*/${kind}/*`)),
          objects('spill/*'),
          // Every table key but the version hint (tables.test.ts checks each kind the committer writes).
          ...['data/*', 'metadata/*.avro', 'metadata/*.metadata.json'].map((kind) =>
            objects(`tables/*/${kind}`),
          ),
        ]),
        Condition: {
          Null: { 's3:if-none-match': 'true' },
          Bool: { 's3:ObjectCreationOperation': 'true' },
        },
      });
      expect(deny?.Resource).toHaveLength(9);
    });

    it('builds the deny from the one list of immutable key patterns', () => {
      const before = [...IMMUTABLE_KEY_PATTERNS];
      (IMMUTABLE_KEY_PATTERNS as string[]).push('shards/*/extra/*');
      try {
        const withExtra = synth({ flushIntervalMs: '10000' });
        const json = JSON.stringify(withExtra.template.findResources('AWS::S3::BucketPolicy'));
        expect(json).toContain('/shards/*/extra/*');
      } finally {
        (IMMUTABLE_KEY_PATTERNS as string[]).splice(0, Infinity, ...before);
      }
    });

    it('lets S3 deliver access logs to the log bucket through its bucket policy, with no ACL', () => {
      const logs = resource(logicalIdOf(s.service.storage.accessLogBucket!));
      expect(logs.Properties.AccessControl).toBeUndefined();
      s.template.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: logicalIdOf(s.service.storage.accessLogBucket!) },
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Allow',
              Principal: { Service: 'logging.s3.amazonaws.com' },
              Action: 's3:PutObject',
            }),
          ]),
        },
      });
    });

    it('denies every request without TLS 1.2', () => {
      s.template.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: logicalIdOf(s.service.storage.bucket) },
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

    it('redrives flush messages after 5 receives, ingest messages after 7 days of hold-backs', () => {
      const { ingest, ingestDlq, ingestFifo, ingestFifoDlq, flush, flushDlq } = s.service.queues;
      for (const [q, dlq] of [
        [ingest!, ingestDlq!],
        [ingestFifo!, ingestFifoDlq!],
      ] as const) {
        expect(queue(q).RedrivePolicy).toEqual({
          deadLetterTargetArn: { 'Fn::GetAtt': [logicalIdOf(dlq), 'Arn'] },
          maxReceiveCount: INGEST_MAX_RECEIVE_COUNT,
        });
        // Kept 14 days (SQS's maximum): a message held back all week still has a week.
        expect(queue(q).MessageRetentionPeriod).toBe(14 * 24 * 3600);
      }
      let heldSeconds = 0;
      for (let n = 1; n < INGEST_MAX_RECEIVE_COUNT; n++) heldSeconds += holdBackSeconds(n);
      expect(heldSeconds).toBeLessThan(7 * 24 * 3600);
      expect(heldSeconds + holdBackSeconds(INGEST_MAX_RECEIVE_COUNT)).toBeGreaterThanOrEqual(
        7 * 24 * 3600,
      );
      expect(queue(flush).RedrivePolicy).toEqual({
        deadLetterTargetArn: { 'Fn::GetAtt': [logicalIdOf(flushDlq), 'Arn'] },
        maxReceiveCount: 5,
      });
    });

    it('keeps failures of scheduled invocations in their own queue, kept 14 days, with no consumer', () => {
      expect(queue(s.service.queues.failures)).toMatchObject({ MessageRetentionPeriod: 1_209_600 });
      expect(queue(s.service.queues.failures).RedrivePolicy).toBeUndefined();
      const consumed = Object.values(
        s.template.findResources('AWS::Lambda::EventSourceMapping'),
      ).map((m) => m.Properties.EventSourceArn['Fn::GetAtt'][0]);
      expect(consumed).not.toContain(logicalIdOf(s.service.queues.failures));
    });

    it('encrypts every queue and denies non-TLS access to each', () => {
      s.template.resourceCountIs('AWS::SQS::Queue', 7);
      for (const q of Object.values(s.template.findResources('AWS::SQS::Queue'))) {
        expect(q.Properties.SqsManagedSseEnabled).toBe(true);
      }
      const policies = Object.values(s.template.findResources('AWS::SQS::QueuePolicy'));
      expect(policies).toHaveLength(7);
      for (const p of policies) {
        expect(JSON.stringify(p.Properties.PolicyDocument)).toContain(
          '"aws:SecureTransport":"false"',
        );
      }
    });

    it('sets visibility timeouts of at least six times the consumer timeout', () => {
      const fnTimeout = (name: HandlerName) =>
        resource(functionId(s, name)).Properties.Timeout as number;
      expect(queue(s.service.queues.ingest!).VisibilityTimeout).toBeGreaterThanOrEqual(
        6 * fnTimeout('putSqs'),
      );
      expect(queue(s.service.queues.flush).VisibilityTimeout).toBeGreaterThanOrEqual(
        6 * fnTimeout('flushWorker'),
      );
    });

    it('keeps queues holding producers rows when the stack is deleted', () => {
      expect(resource(logicalIdOf(s.service.queues.ingest!)).DeletionPolicy).toBe('Retain');
      expect(resource(logicalIdOf(s.service.queues.ingestDlq!)).DeletionPolicy).toBe('Retain');
    });
  });

  describe('event sources', () => {
    it('feeds put-sqs from ingest and flush-worker from flush, both with partial batch responses', () => {
      const mappings = Object.values(s.template.findResources('AWS::Lambda::EventSourceMapping'));
      const bySource = Object.fromEntries(
        mappings.map((m) => [m.Properties.EventSourceArn['Fn::GetAtt'][0], m.Properties]),
      );
      expect(bySource[logicalIdOf(s.service.queues.ingest!)]).toMatchObject({
        FunctionName: { Ref: functionId(s, 'putSqs') },
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
      expect(bySource[logicalIdOf(s.service.queues.flush)]).toMatchObject({
        FunctionName: { Ref: functionId(s, 'flushWorker') },
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        // One fan-out list an invocation (P5 in lib/ticker/tick-plan.ts).
        BatchSize: 1,
      });
      expect(bySource[logicalIdOf(s.service.queues.ingestFifo!)]).toMatchObject({
        FunctionName: { Ref: functionId(s, 'putSqs') },
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
      // FIFO event sources take no batching window.
      expect(bySource[logicalIdOf(s.service.queues.ingestFifo!)]).not.toHaveProperty(
        'MaximumBatchingWindowInSeconds',
      );
      expect(mappings).toHaveLength(3);
    });

    it('caps each ingest source at its own setting, summing to what put-sqs may run, and the flush source at the workers reservation', () => {
      const concurrencyOf = (x: Synthesized, q: Parameters<typeof logicalIdOf>[0]) =>
        Object.values(x.template.findResources('AWS::Lambda::EventSourceMapping')).find(
          (m) => m.Properties.EventSourceArn['Fn::GetAtt'][0] === logicalIdOf(q),
        )?.Properties.ScalingConfig;
      expect(concurrencyOf(s, s.service.queues.ingest!)).toEqual({ MaximumConcurrency: 40 });
      expect(concurrencyOf(s, s.service.queues.ingestFifo!)).toEqual({ MaximumConcurrency: 10 });
      expect(concurrencyOf(s, s.service.queues.flush)).toEqual({ MaximumConcurrency: 40 });
      const capped = synth({
        ingestStandardMaxConcurrency: 5,
        ingestFifoMaxConcurrency: 3,
        flushWorkers: 60,
      });
      expect(concurrencyOf(capped, capped.service.queues.ingest!)).toEqual({
        MaximumConcurrency: 5,
      });
      expect(concurrencyOf(capped, capped.service.queues.ingestFifo!)).toEqual({
        MaximumConcurrency: 3,
      });
      // One setting sizes the workers, their event source and the tick's plan (P6).
      expect(concurrencyOf(capped, capped.service.queues.flush)).toEqual({
        MaximumConcurrency: 60,
      });
      const props = (name: 'flushTick' | 'flushWorker') =>
        capped.template.toJSON().Resources[functionId(capped, name)].Properties;
      expect(props('flushWorker').ReservedConcurrentExecutions).toBe(60);
      expect(props('flushTick').Environment.Variables.SHARDWAL_FLUSH_WORKERS).toBe('60');
    });
  });

  describe('functions', () => {
    it('runs all seven on Node 24, arm64, with their own log group kept a month', () => {
      s.template.resourceCountIs('AWS::Lambda::Function', DEFAULT_HANDLERS.length);
      for (const name of DEFAULT_HANDLERS) {
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
      const { ingest, ingestDlq, ingestFifo, ingestFifoDlq } = s.service.queues;
      for (const name of DEFAULT_HANDLERS) {
        // put-sqs also gets each ingest queue paired with its DLQ (it dead-letters and holds back).
        const ingestQueues =
          name === 'putSqs'
            ? {
                SHARDWAL_INGEST_QUEUE_URL: { Ref: logicalIdOf(ingest!) },
                SHARDWAL_INGEST_DLQ_URL: { Ref: logicalIdOf(ingestDlq!) },
                SHARDWAL_INGEST_FIFO_QUEUE_URL: { Ref: logicalIdOf(ingestFifo!) },
                SHARDWAL_INGEST_FIFO_DLQ_URL: { Ref: logicalIdOf(ingestFifoDlq!) },
              }
            : {};
        expect(resource(functionId(s, name)).Properties.Environment.Variables).toEqual({
          ...ingestQueues,
          SHARDWAL_TABLE: { Ref: logicalIdOf(s.service.storage.table) },
          SHARDWAL_BUCKET: { Ref: logicalIdOf(s.service.storage.bucket) },
          SHARDWAL_FLUSH_QUEUE_URL: { Ref: logicalIdOf(s.service.queues.flush) },
          SHARDWAL_FLUSH_INTERVAL_MS: '10000',
          SHARDWAL_CAPACITY_MODE: 'on-demand',
          SHARDWAL_SPILL_BYTES: '8192',
          SHARDWAL_FLUSH_WORKERS: '40',
          SHARDWAL_STAGE: 'default',
          POWERTOOLS_SERVICE_NAME: 'shardwal',
          POWERTOOLS_METRICS_NAMESPACE: 'shardwal',
          POWERTOOLS_LOG_LEVEL: 'INFO',
        });
      }
    });

    it('reserves concurrency for the ticker (2, for the minute overlap), flush workers, export and recover', () => {
      const reserved = (x: Synthesized) =>
        Object.fromEntries(
          DEFAULT_HANDLERS.map((name) => [
            name,
            x.template.toJSON().Resources[functionId(x, name)].Properties
              .ReservedConcurrentExecutions,
          ]),
        );
      expect(reserved(s)).toEqual({
        putHttp: undefined,
        statusHttp: undefined,
        putSqs: undefined,
        flushTick: 2,
        flushWorker: 40,
        export: 2,
        recover: 2,
      });
      expect(Object.values(reserved(synth({ reservedConcurrency: 'off' })))).toEqual(
        DEFAULT_HANDLERS.map(() => undefined),
      );
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
