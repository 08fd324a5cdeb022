/**
 * Alarms that reach someone. Every alarm notifies one SNS topic when it fires
 * and when it clears: a topic given to the service (`alarmTopic` prop or
 * `alarmTopicArn` setting, e.g. one wired to a pager), or one this construct
 * creates, with `alarmEmail` subscribed when given. With neither a topic nor
 * an email, the alarms notify a topic nobody reads, and synth says so.
 *
 * What each alarm means: `service-alarms.ts` (the service's own metrics) and
 * `resource-alarms.ts` (queues, functions, table, API); the operator's view
 * is in docs/deploy.md.
 */
import { Annotations } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  ComparisonOperator,
  type IMetric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import type { DeploySettings } from '../settings.js';
import type { Functions } from './functions.js';
import type { Queues } from './queues.js';
import { addResourceAlarms } from './resource-alarms.js';
import { addServiceAlarms } from './service-alarms.js';
import { serviceMetrics } from './service-metrics.js';

/** Id of the synth warning when alarms have no destination (acknowledge it to silence it). */
export const NO_ALARM_DESTINATION_WARNING = '@shardwal/alarms:noDestination';

/** How one alarm compares and evaluates, beyond its metric and threshold. */
export interface AlarmOptions {
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

/** Props of `Alarms`. */
export interface AlarmsProps {
  stage: string;
  settings: DeploySettings;
  functions: Functions;
  queues: Queues;
  table: Table;
  httpApi: HttpApi;
  /** An existing topic to notify; unset, one is created. */
  topic?: ITopic;
}

/** The alarm topic and the alarms. */
export class Alarms extends Construct {
  readonly topic: ITopic;
  readonly all: Alarm[] = [];

  constructor(scope: Construct, id: string, props: AlarmsProps) {
    super(scope, id);
    const { settings } = props;
    this.topic =
      props.topic ?? new Topic(this, 'Topic', { displayName: 'shardwal alarms', enforceSSL: true });
    if (settings.alarmEmail) {
      this.topic.addSubscription(
        // An undeliverable notification is kept with the other failures, not lost.
        new EmailSubscription(settings.alarmEmail, { deadLetterQueue: props.queues.failures }),
      );
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
    addResourceAlarms(add, {
      functions: props.functions.byName,
      queues: props.queues,
      table: props.table,
      httpApi: props.httpApi,
    });
  }
}
