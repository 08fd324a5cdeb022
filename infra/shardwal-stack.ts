/**
 * The whole service in one stack: storage, queues, functions and their
 * grants, the HTTP API, the schedules, alarms and a dashboard. Each concept
 * lives in its own construct under `constructs/`; this file only wires them.
 */
import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import type { Code } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Construct } from 'constructs';
import { Alarms } from './constructs/alarms.js';
import { Api } from './constructs/api.js';
import { ServiceDashboard } from './constructs/dashboard.js';
import { Functions } from './constructs/functions.js';
import { grantLeastPrivilege } from './constructs/permissions.js';
import { ProducerPolicy } from './constructs/producer-policy.js';
import { Queues } from './constructs/queues.js';
import { Schedules } from './constructs/schedules.js';
import { functionSizes } from './constructs/sizing.js';
import { Storage } from './constructs/storage.js';
import type { DeploySettings } from './settings.js';

/** Batching window of the ingest event source: a second of latency buys fuller batches. */
export const INGEST_BATCHING_WINDOW = Duration.seconds(1);

/** Props of `ShardwalStack`. */
export interface ShardwalStackProps extends StackProps {
  settings: DeploySettings;
  /** Prebuilt code for every function (template tests); unset, `functions/*.ts` are bundled. */
  functionCode?: Code;
}

/** The shardwal service. */
export class ShardwalStack extends Stack {
  readonly storage: Storage;
  readonly queues: Queues;
  readonly functions: Functions;
  readonly api: Api;
  readonly schedules: Schedules;
  readonly alarms: Alarms;

  constructor(scope: Construct, id: string, props: ShardwalStackProps) {
    super(scope, id, props);
    const { settings } = props;
    const sizes = functionSizes(settings.service);

    this.storage = new Storage(this, 'Storage');
    this.queues = new Queues(this, 'Queues', {
      ingestConsumerTimeout: sizes.putSqs.timeout,
      ingestBatchingWindow: INGEST_BATCHING_WINDOW,
      flushConsumerTimeout: sizes.flushWorker.timeout,
    });
    this.functions = new Functions(this, 'Functions', {
      settings,
      sizes,
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
    });

    fns.putSqs.addEventSource(
      new SqsEventSource(this.queues.ingest, {
        batchSize: 10,
        maxBatchingWindow: INGEST_BATCHING_WINDOW,
        reportBatchItemFailures: true,
      }),
    );
    // No batching window: a flush request is served before the next tick.
    fns.flushWorker.addEventSource(
      new SqsEventSource(this.queues.flush, { batchSize: 10, reportBatchItemFailures: true }),
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
    });

    const deadLetterQueues = { ingest: this.queues.ingestDlq, flush: this.queues.flushDlq };
    this.alarms = new Alarms(this, 'Alarms', {
      intervalMs: settings.service.flushIntervalMs,
      ticker: settings.ticker,
      functions: fns,
      deadLetterQueues,
      alarmEmail: settings.alarmEmail,
    });
    const dashboard = new ServiceDashboard(this, 'Dashboard', {
      functions: fns,
      deadLetterQueues,
      alarms: this.alarms.all,
    });

    const producers = new ProducerPolicy(this, 'ProducerPolicy', {
      ingestQueue: this.queues.ingest,
      httpApi: this.api.httpApi,
      authorizer: settings.authorizer,
    });
    const outputs: Record<string, string> = {
      ApiUrl: this.api.url,
      BucketName: this.storage.bucket.bucketName,
      TableName: this.storage.table.tableName,
      IngestQueueUrl: this.queues.ingest.queueUrl,
      FlushQueueUrl: this.queues.flush.queueUrl,
      RecoverFunctionName: fns.recover.functionName,
      ProducerPolicyArn: producers.policy.managedPolicyArn,
      AlarmTopicArn: this.alarms.topic.topicArn,
      DashboardName: dashboard.dashboard.dashboardName,
    };
    for (const [name, value] of Object.entries(outputs)) new CfnOutput(this, name, { value });
  }
}
