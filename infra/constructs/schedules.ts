/**
 * EventBridge Scheduler drives the flush ticker, the export, the scheduled
 * verify and, with tables on, the Iceberg table commit and its hourly
 * maintenance. The ticker's rate and the ticks inside one invocation both come
 * from the one flush interval (`planSchedule`): under a minute, one
 * invocation a minute runs ticks until the end of its minute; whole minutes
 * map to the rate directly.
 *
 * Failure handling is set on purpose for each schedule, at both hops:
 *   Scheduler → Lambda (the Invoke call):  `SCHEDULE_RETRIES`, then the DLQ;
 *   Lambda's async queue → the handler:    no retries, then the on-failure
 *                                          destination.
 * Both hops end in the `failures` queue, whose depth alarms. Nothing is
 * retried silently, and nothing is retried once the next run is due.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import {
  ContextAttribute,
  Schedule,
  ScheduleExpression,
  ScheduleTargetInput,
  TimeWindow,
} from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke, type ScheduleTargetBaseProps } from 'aws-cdk-lib/aws-scheduler-targets';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { SchedulePlan } from '../../lib/ticker/schedule-plan.js';
import { TICKER_SCHEDULED_TIME_FIELD } from '../../lib/ticker/scheduled-tick.js';
import { grantKeyUse, KEY_SEND_ACTIONS } from './key-use.js';
import { acknowledgeWildcardResources } from './nag.js';

/**
 * Field of the ticker's input holding the time Scheduler planned the
 * invocation for; the function ends its loop at the end of that window, so a
 * late start never runs into the next invocation's loop. One constant, owned
 * by the code that reads it (`lib/ticker/scheduled-tick.ts`).
 */
export { TICKER_SCHEDULED_TIME_FIELD };

/** Input of the scheduled recovery invocation (on-demand rebuilds send `{ shard, mode: 'rebuild' }`). */
const VERIFY_INPUT = { mode: 'verify' } as const;

/**
 * Input of every export invocation: an EventBridge "Scheduled Event", the
 * one shape besides `{ "shard" }` the export function takes
 * (`lib/export/export-event.ts`). Spelled out, so what the function gets
 * does not depend on what Scheduler sends a target without an input.
 */
function exportInput(stack: Stack): Record<string, unknown> {
  return {
    version: '0',
    id: ContextAttribute.executionId,
    'detail-type': 'Scheduled Event',
    source: 'aws.scheduler',
    account: stack.account,
    time: ContextAttribute.scheduledTime,
    region: stack.region,
    resources: [ContextAttribute.scheduleArn],
    detail: {},
  };
}

/** Input of the table commit's schedule (`functions/table-commit.ts`). */
const TABLE_COMMIT_INPUT = {} as const;

/** Input of the hourly table maintenance: commit, then expire snapshots, compact, remove orphans. */
const TABLE_MAINTAIN_INPUT = { maintain: true } as const;

/** Period of the table maintenance. */
const TABLE_MAINTAIN_EVERY_MINUTES = 60;

/** Input of every ticker invocation: the minute it was scheduled for. */
const TICKER_INPUT = {
  [TICKER_SCHEDULED_TIME_FIELD]: ContextAttribute.scheduledTime,
} as const;

/**
 * Scheduler's retries of a failed Invoke call, per schedule. The ticker gets
 * none: a retry would start a second loop for a minute whose own loop may
 * already run, and the next minute's invocation is the retry. Export and
 * verify are idempotent runs, so a retry within their period only helps.
 */
const SCHEDULE_RETRIES = { ticker: 0, export: 2, verify: 2, tables: 2 } as const;

/** Scheduler accepts event ages of 60 s to 24 h; Lambda's async queue 60 s to 6 h. */
const clampAge = (d: Duration, max: Duration) =>
  Duration.seconds(Math.min(max.toSeconds(), Math.max(60, d.toSeconds())));

/** Props of `Schedules`. */
export interface SchedulesProps {
  ticker: SchedulePlan;
  flushTick: IFunction;
  exportFn: IFunction;
  recover: IFunction;
  exportEveryMinutes: number;
  verifyEveryMinutes: number;
  /** Dead-letter queue of the schedules and on-failure destination of the functions. */
  failures: IQueue;
  /** The table committer and its commit period (whole minutes), with tables on. */
  tables?: { fn: IFunction; commitEveryMinutes: number };
  /** The app's key `failures` is encrypted with: each schedule's role may encrypt for it. */
  key?: IKey | undefined;
}

/** The schedules: three, and two more with tables on. */
export class Schedules extends Construct {
  readonly ticker: Schedule;
  readonly export: Schedule;
  readonly verify: Schedule;
  /** The table commit, every `tableCommitMs` rounded up to whole minutes; undefined with tables off. */
  readonly tableCommit: Schedule | undefined;
  /** The hourly table maintenance; undefined with tables off. */
  readonly tableMaintain: Schedule | undefined;

  readonly #key: IKey | undefined;

  constructor(scope: Construct, id: string, props: SchedulesProps) {
    super(scope, id);
    this.#key = props.key;
    const onFailure = new SqsDestination(props.failures);
    const minute = Duration.minutes(1);

    this.ticker = new Schedule(this, 'FlushTicker', {
      description: `shardwal flush ticker: ticks of ${props.ticker.tickIntervalMs} ms until the end of each scheduled ${props.ticker.rateMinutes}-minute slot`,
      schedule: everyMinutes(props.ticker.rateMinutes),
      // No flexible window: ticks fall on the grid, so the invocation must too.
      timeWindow: TimeWindow.off(),
      target: this.invoke('FlushTicker', props.flushTick, {
        retryAttempts: SCHEDULE_RETRIES.ticker,
        // A minute that could not start within its minute is over: record it, never replay it.
        maxEventAge: minute,
        deadLetterQueue: props.failures,
        input: ScheduleTargetInput.fromObject(TICKER_INPUT),
      }),
    });
    // Scheduler invokes asynchronously; Lambda's own async retries (two by
    // default, minutes later) would start a second loop for a past minute.
    props.flushTick.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: minute, onFailure });

    this.export = this.periodic('Export', props.exportFn, props.exportEveryMinutes, {
      description: 'shardwal export: fold WAL objects into AOF exports, retire covered WAL',
      retryAttempts: SCHEDULE_RETRIES.export,
      failures: props.failures,
      onFailure,
      input: ScheduleTargetInput.fromObject(exportInput(Stack.of(this))),
    });
    this.verify = this.periodic('Verify', props.recover, props.verifyEveryMinutes, {
      description: 'shardwal recovery: verify every shard against S3, heal what is provably safe',
      retryAttempts: SCHEDULE_RETRIES.verify,
      failures: props.failures,
      onFailure,
      input: ScheduleTargetInput.fromObject(VERIFY_INPUT),
    });
    // Both runs are idempotent: a commit re-run appends nothing twice, and
    // maintenance never removes a file a live snapshot references.
    this.tableCommit = props.tables
      ? this.periodic('TableCommit', props.tables.fn, props.tables.commitEveryMinutes, {
          description: `shardwal tables: commit new WAL rows to the Iceberg tables every ${props.tables.commitEveryMinutes} min`,
          retryAttempts: SCHEDULE_RETRIES.tables,
          failures: props.failures,
          onFailure,
          input: ScheduleTargetInput.fromObject(TABLE_COMMIT_INPUT),
        })
      : undefined;
    this.tableMaintain = props.tables
      ? this.periodic('TableMaintain', props.tables.fn, TABLE_MAINTAIN_EVERY_MINUTES, {
          description:
            'shardwal tables: commit, expire snapshots, compact small files, remove orphans',
          retryAttempts: SCHEDULE_RETRIES.tables,
          failures: props.failures,
          onFailure,
          input: ScheduleTargetInput.fromObject(TABLE_MAINTAIN_INPUT),
          // Configured by the commit schedule, with its shorter age: a
          // maintenance run Lambda could not start within a commit period is
          // recorded as failed, and the next hour's run does its work.
          configureAsync: false,
        })
      : undefined;
  }

  /**
   * A schedule every `minutes` whose failures are reported, not retried: a
   * failed run shows in the failures queue, and the next run starts from
   * whatever the failed one left (both jobs are idempotent). No event outlives
   * the period: a run older than the next one is redundant.
   */
  periodic(
    id: string,
    fn: IFunction,
    minutes: number,
    options: {
      description: string;
      retryAttempts: number;
      failures: IQueue;
      onFailure: SqsDestination;
      input?: ScheduleTargetInput;
      /** False for a function's second schedule: a function has one async configuration. */
      configureAsync?: boolean;
    },
  ): Schedule {
    const period = Duration.minutes(minutes);
    if (options.configureAsync !== false) {
      fn.configureAsyncInvoke({
        retryAttempts: 0,
        maxEventAge: clampAge(period, Duration.hours(6)),
        onFailure: options.onFailure,
      });
    }
    return new Schedule(this, id, {
      description: options.description,
      schedule: everyMinutes(minutes),
      timeWindow: TimeWindow.off(),
      target: this.invoke(id, fn, {
        retryAttempts: options.retryAttempts,
        maxEventAge: clampAge(period, Duration.hours(24)),
        deadLetterQueue: options.failures,
        ...(options.input ? { input: options.input } : {}),
      }),
    });
  }

  /**
   * A `LambdaInvoke` target with its own role, trusted by Scheduler for this
   * account's default schedule group only. The L2 grants the role
   * `lambda:InvokeFunction` on the function and on `<function>:*` (versions
   * and aliases); cdk-nag IAM5 reports the latter, acknowledged here. The
   * dead-letter queue adds `sqs:SendMessage` on that one queue, and with
   * the app's key, the key's use (the L2 grants no KMS action: without it,
   * dead letters to an encrypted queue would fail unseen).
   */
  private invoke(id: string, fn: IFunction, options: ScheduleTargetBaseProps): LambdaInvoke {
    const stack = Stack.of(this);
    const role = new Role(this, `${id}Role`, {
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: {
          StringEquals: {
            'aws:SourceAccount': stack.account,
            'aws:SourceArn': stack.formatArn({
              service: 'scheduler',
              resource: 'schedule-group',
              resourceName: 'default',
            }),
          },
        },
      }),
    });
    if (this.#key) grantKeyUse(this.#key, role, KEY_SEND_ACTIONS);
    acknowledgeWildcardResources(
      role,
      [`${fn.functionArn}:*`],
      'LambdaInvoke grants InvokeFunction on one function and its versions/aliases (:*); this role can invoke nothing else.',
    );
    return new LambdaInvoke(fn, { ...options, role });
  }
}

const everyMinutes = (n: number) => ScheduleExpression.rate(Duration.minutes(n));
