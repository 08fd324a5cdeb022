/**
 * The shardwal service as one construct: storage, queues, functions and their
 * grants, the HTTP API, the schedules, alarms and a dashboard. It works in any
 * `Stack` of any `App`: every prop is optional, typed, and validated at synth
 * by the service's own rules (`service-props.ts`); the HTTP API and each SQS
 * ingest queue can be left out, and a customer managed key can encrypt the
 * data at rest (`constructs/key-use.ts`). No resource has a fixed physical
 * name, every construct id is its own, and metrics carry the stage, so two
 * instances (two stages) can live in one account, or one stack.
 *
 * cdk-nag runs at App (or Stage) scope only: call `addShardwalChecks(app)`
 * once (`checks.ts`).
 */
import { RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import type { Grant, IGrantable } from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import * as cxapi from 'aws-cdk-lib/cx-api';
import { Construct } from 'constructs';
import { RESOURCE_ENV } from '../lib/config.js';
import { FINDING_WINDOW } from '../lib/table/refused.js';
import { optionsOf } from '../lib/table/table-config.js';
import { Alarms } from './constructs/alarms.js';
import { Api } from './constructs/api.js';
import { ServiceDashboard } from './constructs/dashboard.js';
import { Functions } from './constructs/functions.js';
import { GlueTables } from './constructs/glue-tables.js';
import { grantLeastPrivilege } from './constructs/permissions.js';
import { type GrantProduceOptions, ProducerPolicy } from './constructs/producer-policy.js';
import { INGEST_BATCHING_WINDOW, Queues } from './constructs/queues.js';
import { ReaderPolicy } from './constructs/reader-policy.js';
import { Schedules } from './constructs/schedules.js';
import { acknowledgeServerlessFindings } from './constructs/serverless-findings.js';
import { serviceMetrics } from './constructs/service-metrics.js';
import { functionSizes } from './constructs/sizing.js';
import { Storage } from './constructs/storage.js';
import { pinLogicalIds } from './pinned-ids.js';
import {
  partsOfProps,
  type ServiceParts,
  type ShardwalServiceProps,
  settingsOfProps,
} from './service-props.js';
import { ContextError, DEPLOY_CONTEXT, type DeploySettings } from './settings.js';

export type { ShardwalServiceProps };

/** The shardwal service. */
export class ShardwalService extends Construct {
  /** Stage name: a dimension of every metric, and part of what the alarms watch. */
  readonly stage: string;
  readonly settings: DeploySettings;
  readonly storage: Storage;
  readonly queues: Queues;
  readonly functions: Functions;
  /** The HTTP API; undefined with `httpApi: false`. */
  readonly api: Api | undefined;
  /** What the props left in (HTTP API, each SQS ingest queue, dashboard). */
  readonly parts: ServiceParts;
  readonly schedules: Schedules;
  readonly alarms: Alarms;
  /** The dashboard; undefined with `dashboard: false`. */
  readonly dashboard: ServiceDashboard | undefined;
  readonly producers: ProducerPolicy;
  /** Readers' least privilege (`shardwal tail`, `tailShard`): the policy, or `readers.grantRead(grantee)`. */
  readonly readers: ReaderPolicy;
  /** The Glue database and tables (`tableCatalog: 'glue'`); undefined otherwise. */
  readonly glueTables: GlueTables | undefined;

  constructor(scope: Construct, id: string, props: ShardwalServiceProps = {}) {
    super(scope, id);
    // The data bucket logs to its own bucket through a bucket policy (an ACL
    // cannot be granted on a bucket-owner-enforced bucket). The flag is the
    // app's to set; pinned here so the construct works in any app.
    this.node.setContext(cxapi.S3_SERVER_ACCESS_LOGS_USE_BUCKET_POLICY, true);
    const settings = settingsOfProps(props);
    const parts = partsOfProps(props);
    this.settings = settings;
    this.parts = parts;
    this.stage = settings.stage ?? Stack.of(this).stackName;
    assertStageUnique(this);
    const sizes = functionSizes(settings.service);

    this.storage = new Storage(this, 'Storage', {
      capacity: settings.capacity,
      table: props.table,
      bucket: props.bucket,
      removalPolicy: props.removalPolicy,
      deletionProtection: props.deletionProtection,
      key: props.key,
    });
    this.queues = new Queues(this, 'Queues', {
      ingest: parts.ingest,
      key: props.key,
      ingestRemovalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
      ingestConsumerTimeout: sizes.putSqs.timeout,
      ingestBatchingWindow: INGEST_BATCHING_WINDOW,
      flushConsumerTimeout: sizes.flushWorker.timeout,
    });
    if (props.logicalIds) pinLogicalIds(this.storage, this.queues, props.logicalIds);
    this.functions = new Functions(this, 'Functions', {
      settings,
      stage: this.stage,
      sizes,
      optional: {
        tableCommit: settings.tables !== undefined,
        putHttp: parts.http,
        statusHttp: parts.http,
        putSqs: parts.ingest.standard || parts.ingest.fifo,
      },
      tableName: this.storage.table.tableName,
      bucketName: this.storage.bucket.bucketName,
      flushQueueUrl: this.queues.flush.queueUrl,
      ...(props.functionCode ? { code: props.functionCode } : {}),
    });
    const fns = this.functions.byName;
    const { ingest, ingestDlq, ingestFifo, ingestFifoDlq } = this.queues;
    grantLeastPrivilege({
      functions: fns,
      table: this.storage.table,
      bucket: this.storage.bucket,
      flushQueue: this.queues.flush,
      ingestDeadLetterQueues: present(ingestDlq, ingestFifoDlq),
      spilling: settings.service.spillBytes !== undefined,
      key: props.key,
    });
    const glue = settings.tables?.glue;
    this.glueTables =
      glue && settings.tables && fns.tableCommit
        ? new GlueTables(this, 'GlueTables', {
            bucket: this.storage.bucket,
            database: glue.database,
            tables: glue.tables.map((name) => ({
              name,
              columns: optionsOf(settings.tables!.config, name).columns,
            })),
          })
        : undefined;
    if (this.glueTables && fns.tableCommit) this.glueTables.grantCommit(fns.tableCommit);
    // Verify reports the table appends of one verify period (`lib/recovery/verify-tables.ts`).
    if (settings.tables) {
      fns.recover.addEnvironment(FINDING_WINDOW.env, String(settings.verifyEveryMinutes * 60_000));
    }
    if (fns.putSqs) {
      // put-sqs dead-letters permanent refusals itself and holds back retryable
      // ones (`lib/sqs/put-messages.ts`): it needs each queue paired with its DLQ.
      const ingestEnv = {
        [RESOURCE_ENV.ingestQueueUrl]: ingest?.queueUrl,
        [RESOURCE_ENV.ingestDlqUrl]: ingestDlq?.queueUrl,
        [RESOURCE_ENV.ingestFifoQueueUrl]: ingestFifo?.queueUrl,
        [RESOURCE_ENV.ingestFifoDlqUrl]: ingestFifoDlq?.queueUrl,
      };
      for (const [name, value] of Object.entries(ingestEnv)) {
        if (value !== undefined) fns.putSqs.addEnvironment(name, value);
      }
    }
    if (fns.putSqs && ingest) {
      fns.putSqs.addEventSource(
        new SqsEventSource(ingest, {
          batchSize: 10,
          maxBatchingWindow: INGEST_BATCHING_WINDOW,
          reportBatchItemFailures: true,
          // Bounds what a backlog can do to the table and to the account's concurrency.
          maxConcurrency: settings.ingestMaxConcurrency.standard,
        }),
      );
    }
    if (fns.putSqs && ingestFifo) {
      // FIFO: no batching window (FIFO sources take none); the handler sees the
      // `.fifo` ARN and keeps each group's order through partial failures.
      fns.putSqs.addEventSource(
        new SqsEventSource(ingestFifo, {
          batchSize: 10,
          reportBatchItemFailures: true,
          maxConcurrency: settings.ingestMaxConcurrency.fifo,
        }),
      );
    }
    // No batching window: a flush request is served before the next tick.
    // One message an invocation: a tick's fan-out message is one worker's list
    // (P5 in lib/ticker/tick-plan.ts), sized to what one invocation flushes in
    // the interval; two in one invocation would take twice as long.
    fns.flushWorker.addEventSource(
      new SqsEventSource(this.queues.flush, {
        batchSize: 1,
        reportBatchItemFailures: true,
        // The workers' reserved concurrency (`flushWorkers`), so SQS never meets
        // a throttle; the tick's plan hands over no more lists than this (P6).
        maxConcurrency: settings.service.flushWorkers,
      }),
    );

    this.api =
      fns.putHttp && fns.statusHttp
        ? new Api(this, 'Api', {
            putHandler: fns.putHttp,
            statusHandler: fns.statusHttp,
            authorizer: settings.authorizer,
            rateLimit: settings.apiRateLimit,
            burstLimit: settings.apiBurstLimit,
          })
        : undefined;
    this.schedules = new Schedules(this, 'Schedules', {
      ticker: settings.ticker,
      flushTick: fns.flushTick,
      exportFn: fns.export,
      recover: fns.recover,
      exportEveryMinutes: settings.exportEveryMinutes,
      verifyEveryMinutes: settings.verifyEveryMinutes,
      failures: this.queues.failures,
      key: props.key,
      ...(fns.tableCommit && settings.tables
        ? {
            tables: { fn: fns.tableCommit, commitEveryMinutes: settings.tables.commitEveryMinutes },
          }
        : {}),
    });
    this.alarms = new Alarms(this, 'Alarms', {
      stage: this.stage,
      settings,
      functions: this.functions,
      queues: this.queues,
      table: this.storage.table,
      httpApi: this.api?.httpApi,
      topic: props.alarmTopic,
      key: props.key,
    });
    this.dashboard = parts.dashboard
      ? new ServiceDashboard(this, 'Dashboard', {
          metric: serviceMetrics(this.stage),
          functions: fns,
          deadLetterQueues: Object.fromEntries(
            Object.entries({
              ingest: ingestDlq,
              ingestFifo: ingestFifoDlq,
              flush: this.queues.flushDlq,
              failures: this.queues.failures,
            }).filter((entry): entry is [string, Queue] => entry[1] !== undefined),
          ),
          alarms: this.alarms.all,
        })
      : undefined;
    this.producers = new ProducerPolicy(this, 'ProducerPolicy', {
      ingestQueues: present(ingest, ingestFifo),
      httpApi: this.api?.httpApi,
      authorizer: settings.authorizer,
      trustedAccounts: settings.producerAccounts,
      key: props.key,
    });
    if (settings.producerAccounts.length > 0 && !this.producers.role) {
      throw new ContextError(
        'producerAccounts',
        settings.producerAccounts,
        'producers need no IAM grant here (no SQS ingest, a JWT-authorized API): no role to trust them with',
      );
    }
    this.readers = new ReaderPolicy(this, 'ReaderPolicy', {
      bucket: this.storage.bucket,
      tables: settings.tables !== undefined,
      ...(this.glueTables ? { glueArns: this.glueTables.arns } : {}),
      key: props.key,
    });
    acknowledgeServerlessFindings(this.functions);
  }

  /**
   * Lets `grantee` put rows over HTTP and SQS and read shard status, for the
   * given shard names or prefixes (`orders-*`) over HTTP; SQS cannot be
   * narrowed by shard. The same actions as the producer policy, for the
   * parts this service has (no route without the HTTP API, no queue left
   * out), and the key's data keys for the encrypted queues.
   */
  grantProduce(grantee: IGrantable, options: GrantProduceOptions = {}): Grant {
    return this.producers.grantProduce(grantee, options);
  }

  /** Lets `grantee` read the durable rows (`shardwal tail`, `tailShard`, `dump --bucket`). */
  grantRead(grantee: IGrantable): Grant {
    return this.readers.grantRead(grantee);
  }

  /** What a deployment's outputs carry, by output name (the stack decides where they go). */
  outputs(): Record<string, string> {
    const fns = this.functions.byName;
    const { ingest, ingestFifo, ingestDlq, ingestFifoDlq } = this.queues;
    // A part left out has no output.
    return defined({
      Stage: this.stage,
      ApiUrl: this.api?.url,
      BucketName: this.storage.bucket.bucketName,
      TableName: this.storage.table.tableName,
      AccessLogBucketName: this.storage.accessLogBucket?.bucketName,
      IngestQueueUrl: ingest?.queueUrl,
      IngestFifoQueueUrl: ingestFifo?.queueUrl,
      IngestDlqUrl: ingestDlq?.queueUrl,
      IngestFifoDlqUrl: ingestFifoDlq?.queueUrl,
      FlushQueueUrl: this.queues.flush.queueUrl,
      FailuresQueueUrl: this.queues.failures.queueUrl,
      RecoverFunctionName: fns.recover.functionName,
      ExportFunctionName: fns.export.functionName,
      TableCommitFunctionName: fns.tableCommit?.functionName,
      GlueDatabaseName: this.glueTables ? this.settings.tables!.glue!.database : undefined,
      ProducerPolicyArn: this.producers.policy?.managedPolicyArn,
      ReaderPolicyArn: this.readers.policy.managedPolicyArn,
      ProducerRoleArn: this.producers.role?.roleArn,
      AlarmTopicArn: this.alarms.topic.topicArn,
      DashboardName: this.dashboard?.dashboard.dashboardName,
    });
  }
}

/** The queues that exist. */
function present(...queues: (Queue | undefined)[]): Queue[] {
  return queues.filter((q): q is Queue => q !== undefined);
}

/** The entries whose value is set, in their order. */
function defined(values: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

/**
 * Two services of one stage in one environment would write the same metric
 * series and their alarms would watch each other's; refuse at synth.
 */
function assertStageUnique(service: ShardwalService): void {
  const stack = Stack.of(service);
  const key = (s: ShardwalService) => `${Stack.of(s).account}/${Stack.of(s).region}/${s.stage}`;
  for (const other of service.node.root.node.findAll()) {
    if (other !== service && other instanceof ShardwalService && key(other) === key(service)) {
      throw new ContextError(
        DEPLOY_CONTEXT.stage,
        service.stage,
        `${other.node.path} already uses this stage in ${envName(stack)}; give each service its own stage`,
      );
    }
  }
}

/** The stack's account and region as a person reads them (an env-agnostic one has tokens). */
function envName(stack: Stack): string {
  const account = Token.isUnresolved(stack.account) ? 'the deploying account' : stack.account;
  const region = Token.isUnresolved(stack.region) ? 'the deploying region' : stack.region;
  return `${account}, ${region}`;
}
