/**
 * Alarms that reach someone. Every alarm notifies one SNS topic when it fires
 * and when it clears: a topic given to the service (`alarmTopic` prop; the
 * app maps its `alarmTopicArn` context onto it), e.g. one wired to a pager, or one this construct
 * creates, with `alarmEmail` subscribed when given. With neither a topic nor
 * an email, the alarms notify a topic nobody reads, and synth says so.
 *
 * What each alarm means: `service-alarms.ts` (the service's own metrics) and
 * `resource-alarms.ts` (queues, functions, table, API); the operator's view
 * is in docs/deploy.md.
 */
import { Annotations, ArnFormat, Stack } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  ComparisonOperator,
  type IMetric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import type { DeploySettings } from '../settings.js';
import type { Functions } from './functions.js';
import { allowServicesToUseKey } from './key-use.js';
import type { Queues } from './queues.js';
import { addResourceAlarms } from './resource-alarms.js';
import { addServiceAlarms } from './service-alarms.js';
import { serviceMetrics } from './service-metrics.js';
import { addTableAlarms } from './table-alarms.js';

/** Id of the synth warning when alarms have no destination (acknowledge it to silence it). */
export const NO_ALARM_DESTINATION_WARNING = '@shardwal/alarms:noDestination';

/** How one alarm compares and evaluates, beyond its metric and threshold. */
interface AlarmOptions {
  comparison?: ComparisonOperator;
  missing?: TreatMissingData;
  evaluationPeriods?: number;
}

/** Creates one alarm wired to the topic. */
export type AddAlarm = (
  id: string,
  metric: IMetric,
  threshold: number,
  description: string,
  options?: AlarmOptions,
) => Alarm;

/** Sid of the topic policy statement that lets this account's alarms publish. */
export const ALARM_PUBLISH_SID = 'AllowCloudWatchAlarmsOfThisAccount';

/**
 * The alarm topic this construct creates. A topic policy replaces SNS's
 * default policy, and `enforceSSL` writes one (deny publishing without TLS):
 * without an allow for CloudWatch, alarms would fail to publish ("no
 * resource-based policy allows") and notify nobody. So CloudWatch may
 * publish, for alarms of this account only (`aws:SourceAccount`, and
 * `aws:SourceArn` on the account's alarms, against the confused deputy).
 *
 * Encrypted only with the app's customer managed key (`key` prop), whose
 * policy then lets `cloudwatch.amazonaws.com` use it (`key-use.ts`):
 * CloudWatch can publish to an encrypted topic only so; with the AWS managed
 * SNS key alarms are dropped silently. Without a key, not encrypted:
 * notifications carry alarm names and states, no data.
 */
function alarmTopic(scope: Construct, key: IKey | undefined): Topic {
  const topic = new Topic(scope, 'Topic', {
    displayName: 'shardwal alarms',
    enforceSSL: true,
    ...(key ? { masterKey: key } : {}),
  });
  const stack = Stack.of(scope);
  topic.addToResourcePolicy(
    new PolicyStatement({
      sid: ALARM_PUBLISH_SID,
      principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
      actions: ['sns:Publish'],
      resources: [topic.topicArn],
      conditions: {
        StringEquals: { 'aws:SourceAccount': stack.account },
        ArnLike: {
          'aws:SourceArn': stack.formatArn({
            service: 'cloudwatch',
            resource: 'alarm',
            resourceName: '*',
            arnFormat: ArnFormat.COLON_RESOURCE_NAME,
          }),
        },
      },
    }),
  );
  return topic;
}

/** Props of `Alarms`. */
export interface AlarmsProps {
  stage: string;
  settings: DeploySettings;
  functions: Functions;
  queues: Queues;
  table: ITable;
  /** The HTTP API; undefined when the service has none. */
  httpApi: HttpApi | undefined;
  /** An existing topic to notify; unset, one is created. */
  topic?: ITopic | undefined;
  /** The app's key: the created topic is encrypted with it. */
  key?: IKey | undefined;
}

/** The alarm topic and the alarms. */
export class Alarms extends Construct {
  readonly topic: ITopic;
  readonly all: Alarm[] = [];

  constructor(scope: Construct, id: string, props: AlarmsProps) {
    super(scope, id);
    const { settings } = props;
    this.topic = props.topic ?? alarmTopic(this, props.key);
    if (settings.alarmEmail) {
      this.topic.addSubscription(
        // An undeliverable notification is kept with the other failures, not lost.
        new EmailSubscription(settings.alarmEmail, { deadLetterQueue: props.queues.failures }),
      );
    }
    if (props.key) {
      allowServicesToUseKey(this, props.key, {
        alarmTopic: !props.topic,
        snsDeadLetters: settings.alarmEmail !== undefined,
      });
    }
    if (!props.topic && !settings.alarmEmail) {
      Annotations.of(this).addWarningV2(
        NO_ALARM_DESTINATION_WARNING,
        `shardwal stage ${props.stage}: alarms notify a new SNS topic with no subscriber, so they reach nobody. Set alarmEmail, alarmTopicArn (a topic wired to your pager) or the alarmTopic prop; see docs/deploy.md.`,
      );
    }
    const action = new SnsAction(this.topic);
    const add: AddAlarm = (alarmId, metric, threshold, description, options = {}) => {
      const created = new Alarm(this, alarmId, {
        metric,
        threshold,
        alarmDescription: description,
        comparisonOperator:
          options.comparison ?? ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: options.evaluationPeriods ?? 1,
        // Most of these metrics are only emitted when something happens.
        treatMissingData: options.missing ?? TreatMissingData.NOT_BREACHING,
      });
      created.addAlarmAction(action);
      created.addOkAction(action);
      this.all.push(created);
      return created;
    };

    addServiceAlarms(this, add, {
      stage: props.stage,
      metric: serviceMetrics(props.stage),
      settings,
      functions: props.functions,
    });
    const tables = settings.tables;
    const committerLogs = props.functions.logGroups.tableCommit;
    if (tables && committerLogs) {
      addTableAlarms(this, add, {
        metric: serviceMetrics(props.stage),
        commitMs: tables.config.commitMs,
        commitEveryMinutes: tables.commitEveryMinutes,
        walRetentionMs: settings.service.walRetentionMs,
        logGroup: committerLogs,
      });
    }
    addResourceAlarms(add, {
      functions: props.functions.byName,
      queues: props.queues,
      table: props.table,
      httpApi: props.httpApi,
    });
  }
}
