/**
 * The whole service in one stack: storage, queues, functions and their
 * grants, the HTTP API, the schedules, alarms and a dashboard. Each concept
 * lives in its own construct under `constructs/`; this file only wires them.
 */
import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { Effect, ManagedPolicy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Code } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Construct } from 'constructs';
import { Alarms } from './constructs/alarms.js';
import { Api, ROUTES } from './constructs/api.js';
import { ServiceDashboard } from './constructs/dashboard.js';
import { Functions } from './constructs/functions.js';
import { acknowledgeWildcardResources, refToken } from './constructs/nag.js';
import { grantLeastPrivilege } from './constructs/permissions.js';
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

    const producerPolicy = this.producerPolicy(settings);
    const outputs: Record<string, string> = {
      ApiUrl: this.api.url,
      BucketName: this.storage.bucket.bucketName,
      TableName: this.storage.table.tableName,
      IngestQueueUrl: this.queues.ingest.queueUrl,
      FlushQueueUrl: this.queues.flush.queueUrl,
      RecoverFunctionName: fns.recover.functionName,
      ProducerPolicyArn: producerPolicy.managedPolicyArn,
      AlarmTopicArn: this.alarms.topic.topicArn,
      DashboardName: dashboard.dashboard.dashboardName,
    };
    for (const [name, value] of Object.entries(outputs)) new CfnOutput(this, name, { value });
  }

  /**
   * A policy for producers to attach to their own role: send to the ingest
   * queue and, with the IAM authorizer, call the API routes. Nothing else.
   */
  private producerPolicy(settings: DeploySettings): ManagedPolicy {
    const statements = [
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['sqs:SendMessage'],
        resources: [this.queues.ingest.queueArn],
      }),
    ];
    const routes = [ROUTES.put, ROUTES.shardStatus, ROUTES.seqStatus];
    // `{param}` segments become `*` in an execute-api ARN.
    const routeArns = routes.map((r) =>
      this.api.httpApi.arnForExecuteApi(r.method, r.path.replace(/\{[^}]+\}/g, '*'), '$default'),
    );
    if (settings.authorizer.kind === 'iam') {
      statements.push(
        new PolicyStatement({ effect: Effect.ALLOW, actions: ['execute-api:Invoke'], resources: routeArns }),
      );
    }
    const policy = new ManagedPolicy(this, 'ProducerPolicy', {
      description: 'shardwal producers: put rows (ingest queue, HTTP API) and read shard status',
      statements,
    });
    if (settings.authorizer.kind === 'iam') {
      acknowledgeWildcardResources(
        policy,
        routes.map(
          (r) =>
            `arn:<AWS::Partition>:execute-api:<AWS::Region>:<AWS::AccountId>:${refToken(this.api.httpApi)}/$default/${r.method}${r.path.replace(/\{[^}]+\}/g, '*')}`,
        ),
        'Route ARNs carry * for the {shard} and {seq} path parameters: producers choose shard names at run time; method and route are fixed.',
      );
    }
    return policy;
  }
}
