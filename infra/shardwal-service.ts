/**
 * The shardwal service as one construct: storage, queues, functions and their
 * grants, the HTTP API, the schedules, alarms and a dashboard. It works in any
 * `Stack` of any `App`: every setting is optional and validated at synth by
 * the service's own rules (`settings.ts`), no resource has a fixed physical
 * name, every construct id is its own, and metrics carry the stage, so two
 * instances (two stages) can live in one account, or one stack.
 *
 * cdk-nag runs at App (or Stage) scope only: call `addShardwalChecks(app)`
 * once (`checks.ts`).
 */
import { RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { Grant, IGrantable } from 'aws-cdk-lib/aws-iam';
import type { Code } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import * as cxapi from 'aws-cdk-lib/cx-api';
import { Construct } from 'constructs';
import {
  CAPACITY_MODE_ENV,
  DURABLE_PUTS_ENV,
  RESOURCE_ENV,
  SETTINGS,
  SPILL_BYTES_ENV,
} from '../lib/config.js';
import { ConfigError } from '../lib/errors.js';
import { FINDING_WINDOW } from '../lib/table/refused.js';
import { optionsOf } from '../lib/table/table-config.js';
import { Alarms } from './constructs/alarms.js';
import { Api } from './constructs/api.js';
import { FLUSH_WORKER_MAX_CONCURRENCY } from './constructs/concurrency.js';
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
import { type PinnedLogicalIds, pinLogicalIds } from './pinned-ids.js';
import {
  ContextError,
  DEPLOY_CONTEXT,
  type DeploySettings,
  PropError,
  type SettingsKey,
  type ShardwalSettings,
  validateDeploySettings,
} from './settings.js';

/** Props of `ShardwalService`; all optional. */
export interface ShardwalServiceProps {
  /**
   * Settings under the context keys of `cdk.json` (`flushIntervalMs`,
   * `stage`, `alarmEmail`, ...), validated at synth as `cdk synth` validates
   * the context. Unset keys take the service's defaults; `stage` defaults to
   * the stack's name.
   */
  readonly settings?: ShardwalSettings;
  /** An existing SNS topic for the alarms (e.g. wired to a pager); instead of `settings.alarmTopicArn`. */
  readonly alarmTopic?: ITopic;
  /**
   * Logical ids to keep for the stateful resources (table, buckets, queues),
   * when adopting a stack deployed under other construct paths: a changed id
   * would replace the resource and orphan the retained one with its data.
   */
  readonly logicalIds?: PinnedLogicalIds;
  /** Prebuilt code for every function (template tests); unset, `functions/*.ts` are bundled. */
  readonly functionCode?: Code;
  /**
   * An existing DynamoDB table with shardwal's layout (`TABLE_LAYOUT`: keys
   * `pk`/`sk`, the sparse `pending` and `registry` indexes, TTL on
   * `expiresAt`) instead of a new one. Capacity settings then do nothing.
   */
  readonly table?: ITable;
  /**
   * An existing bucket instead of a new one. The service then adds none of
   * the bucket's guardrails (overwrite deny, TLS only, versioning,
   * lifecycle): synth warns until that is acknowledged (docs/deploy.md).
   */
  readonly bucket?: IBucket;
  /** What deleting the stack does to the data: table, buckets, ingest queues. Default RETAIN. */
  readonly removalPolicy?: RemovalPolicy;
  /** The table's deletion protection. Default on. */
  readonly deletionProtection?: boolean;
  /** Whether to create the CloudWatch dashboard. Default on (alarms are always on). */
  readonly dashboard?: boolean;
}

/** The shardwal service. */
export class ShardwalService extends Construct {
  /** Stage name: a dimension of every metric, and part of what the alarms watch. */
  readonly stage: string;
  readonly settings: DeploySettings;
  readonly storage: Storage;
  readonly queues: Queues;
  readonly functions: Functions;
  readonly api: Api;
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
    const settings = settingsOfProps(props.settings);
    this.settings = settings;
    this.stage = settings.stage ?? Stack.of(this).stackName;
    assertStageUnique(this);
    const sizes = functionSizes(settings.service);

    this.storage = new Storage(this, 'Storage', {
      capacity: settings.capacity,
      table: props.table,
      bucket: props.bucket,
      removalPolicy: props.removalPolicy,
      deletionProtection: props.deletionProtection,
    });
    this.queues = new Queues(this, 'Queues', {
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
      optional: { tableCommit: settings.tables !== undefined },
      tableName: this.storage.table.tableName,
      bucketName: this.storage.bucket.bucketName,
      flushQueueUrl: this.queues.flush.queueUrl,
      ...(props.functionCode ? { code: props.functionCode } : {}),
    });
    const fns = this.functions.byName;
    grantLeastPrivilege({
      functions: fns,
      table: this.storage.table,
      bucket: this.storage.bucket,
      flushQueue: this.queues.flush,
      ingestDeadLetterQueues: [this.queues.ingestDlq, this.queues.ingestFifoDlq],
      spilling: settings.service.spillBytes !== undefined,
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
    // put-sqs dead-letters permanent refusals itself and holds back retryable
    // ones (`lib/sqs/put-messages.ts`): it needs each queue paired with its DLQ.
    const ingestEnv = {
      [RESOURCE_ENV.ingestQueueUrl]: this.queues.ingest.queueUrl,
      [RESOURCE_ENV.ingestDlqUrl]: this.queues.ingestDlq.queueUrl,
      [RESOURCE_ENV.ingestFifoQueueUrl]: this.queues.ingestFifo.queueUrl,
      [RESOURCE_ENV.ingestFifoDlqUrl]: this.queues.ingestFifoDlq.queueUrl,
    };
    for (const [name, value] of Object.entries(ingestEnv)) fns.putSqs.addEnvironment(name, value);

    fns.putSqs.addEventSource(
      new SqsEventSource(this.queues.ingest, {
        batchSize: 10,
        maxBatchingWindow: INGEST_BATCHING_WINDOW,
        reportBatchItemFailures: true,
        // Bounds what a backlog can do to the table and to the account's concurrency.
        maxConcurrency: settings.ingestMaxConcurrency.standard,
      }),
    );
    // FIFO: no batching window (FIFO sources take none); the handler sees the
    // `.fifo` ARN and keeps each group's order through partial failures.
    fns.putSqs.addEventSource(
      new SqsEventSource(this.queues.ingestFifo, {
        batchSize: 10,
        reportBatchItemFailures: true,
        maxConcurrency: settings.ingestMaxConcurrency.fifo,
      }),
    );
    // No batching window: a flush request is served before the next tick.
    // One message an invocation: a tick's fan-out message is one worker's list
    // (P5 in lib/ticker/tick-plan.ts), sized to what one invocation flushes in
    // the interval; two in one invocation would take twice as long.
    fns.flushWorker.addEventSource(
      new SqsEventSource(this.queues.flush, {
        batchSize: 1,
        reportBatchItemFailures: true,
        // At most the worker's reserved concurrency: SQS never meets a throttle.
        maxConcurrency: FLUSH_WORKER_MAX_CONCURRENCY,
      }),
    );

    this.api = new Api(this, 'Api', {
      putHandler: fns.putHttp,
      statusHandler: fns.statusHttp,
      authorizer: settings.authorizer,
      rateLimit: settings.apiRateLimit,
      burstLimit: settings.apiBurstLimit,
    });
    this.schedules = new Schedules(this, 'Schedules', {
      ticker: settings.ticker,
      flushTick: fns.flushTick,
      exportFn: fns.export,
      recover: fns.recover,
      exportEveryMinutes: settings.exportEveryMinutes,
      verifyEveryMinutes: settings.verifyEveryMinutes,
      failures: this.queues.failures,
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
      httpApi: this.api.httpApi,
      ...alarmTopicOf(this, props.alarmTopic, settings),
    });
    this.dashboard =
      props.dashboard === false
        ? undefined
        : new ServiceDashboard(this, 'Dashboard', {
            metric: serviceMetrics(this.stage),
            functions: fns,
            deadLetterQueues: {
              ingest: this.queues.ingestDlq,
              ingestFifo: this.queues.ingestFifoDlq,
              flush: this.queues.flushDlq,
              failures: this.queues.failures,
            },
            alarms: this.alarms.all,
          });
    this.producers = new ProducerPolicy(this, 'ProducerPolicy', {
      ingestQueues: [this.queues.ingest, this.queues.ingestFifo],
      httpApi: this.api.httpApi,
      authorizer: settings.authorizer,
      trustedAccounts: settings.producerAccounts,
    });
    this.readers = new ReaderPolicy(this, 'ReaderPolicy', {
      bucket: this.storage.bucket,
      tables: settings.tables !== undefined,
      ...(this.glueTables ? { glueArns: this.glueTables.arns } : {}),
    });
    acknowledgeServerlessFindings(this.functions);
  }

  /**
   * Lets `grantee` put rows over HTTP and SQS and read shard status, for the
   * given shard names or prefixes (`orders-*`) over HTTP; SQS cannot be
   * narrowed by shard. The same actions as the producer policy.
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
    return {
      Stage: this.stage,
      ApiUrl: this.api.url,
      BucketName: this.storage.bucket.bucketName,
      TableName: this.storage.table.tableName,
      ...(this.storage.accessLogBucket
        ? { AccessLogBucketName: this.storage.accessLogBucket.bucketName }
        : {}),
      IngestQueueUrl: this.queues.ingest.queueUrl,
      IngestFifoQueueUrl: this.queues.ingestFifo.queueUrl,
      IngestDlqUrl: this.queues.ingestDlq.queueUrl,
      IngestFifoDlqUrl: this.queues.ingestFifoDlq.queueUrl,
      FlushQueueUrl: this.queues.flush.queueUrl,
      FailuresQueueUrl: this.queues.failures.queueUrl,
      RecoverFunctionName: fns.recover.functionName,
      ExportFunctionName: fns.export.functionName,
      ...(fns.tableCommit ? { TableCommitFunctionName: fns.tableCommit.functionName } : {}),
      ...(this.glueTables ? { GlueDatabaseName: this.settings.tables!.glue!.database } : {}),
      ProducerPolicyArn: this.producers.policy.managedPolicyArn,
      ReaderPolicyArn: this.readers.policy.managedPolicyArn,
      ...(this.producers.role ? { ProducerRoleArn: this.producers.role.roleArn } : {}),
      AlarmTopicArn: this.alarms.topic.topicArn,
      ...(this.dashboard ? { DashboardName: this.dashboard.dashboard.dashboardName } : {}),
    };
  }
}

/**
 * The `settings` prop, validated as the context is; an error names the prop
 * (`settings.flushIntervalMs`), not a context key or an environment name,
 * and keeps the service's own error as its cause.
 */
function settingsOfProps(settings: ShardwalSettings | undefined): DeploySettings {
  try {
    return validateDeploySettings(settings);
  } catch (error) {
    const key =
      error instanceof ContextError
        ? error.contextKey
        : error instanceof ConfigError
          ? settingKeyOfEnv(error.setting)
          : undefined;
    if (key === undefined) throw error;
    const problem = (error as Error).message.replace(/^.*?=("[^"]*"|[^:]*): /, '');
    throw new PropError(`settings.${key}`, settings?.[key as SettingsKey], problem, {
      cause: error,
    });
  }
}

/** The settings key of a service setting's environment name (`SHARDWAL_FLUSH_INTERVAL_MS` → `flushIntervalMs`). */
function settingKeyOfEnv(env: string): string {
  const named = Object.entries(SETTINGS).find(([, s]) => s.env === env)?.[0];
  if (named) return named;
  const deploy: Record<string, string> = {
    [DURABLE_PUTS_ENV]: 'durablePuts',
    [CAPACITY_MODE_ENV]: 'capacityMode',
    [SPILL_BYTES_ENV]: 'spillBytes',
  };
  return deploy[env] ?? env;
}

/** The alarm topic from the prop or the `alarmTopicArn` setting; both is ambiguous. */
function alarmTopicOf(
  scope: Construct,
  topic: ITopic | undefined,
  settings: DeploySettings,
): { topic?: ITopic } {
  if (topic && settings.alarmTopicArn) {
    throw new ContextError(
      DEPLOY_CONTEXT.alarmTopicArn,
      settings.alarmTopicArn,
      'the alarmTopic prop is given too; give one alarm topic',
    );
  }
  if (topic) return { topic };
  if (settings.alarmTopicArn) {
    return { topic: Topic.fromTopicArn(scope, 'AlarmTopic', settings.alarmTopicArn) };
  }
  return {};
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
