/**
 * EventBridge Scheduler drives the flush ticker, the export and the scheduled
 * verify. The ticker's rate and the ticks inside one invocation both come
 * from the one flush interval (`planSchedule`): under a minute, one
 * invocation a minute runs `60 s / interval` ticks; whole minutes map to the
 * rate directly.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import {
  Schedule,
  ScheduleExpression,
  ScheduleTargetInput,
  TimeWindow,
} from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke, type ScheduleTargetBaseProps } from 'aws-cdk-lib/aws-scheduler-targets';
import { Construct } from 'constructs';
import type { SchedulePlan } from '../../lib/ticker/schedule-plan.js';
import { acknowledgeWildcardResources, arnToken } from './nag.js';

/** Input of the scheduled recovery invocation (on-demand rebuilds send `{ shard, mode: 'rebuild' }`). */
export const VERIFY_INPUT = { mode: 'verify' } as const;

/** Props of `Schedules`. */
export interface SchedulesProps {
  ticker: SchedulePlan;
  flushTick: IFunction;
  exportFn: IFunction;
  recover: IFunction;
  exportEveryMinutes: number;
  verifyEveryMinutes: number;
}

const everyMinutes = (n: number) => ScheduleExpression.rate(Duration.minutes(n));

/** The three schedules. */
export class Schedules extends Construct {
  readonly ticker: Schedule;
  readonly export: Schedule;
  readonly verify: Schedule;

  constructor(scope: Construct, id: string, props: SchedulesProps) {
    super(scope, id);
    this.ticker = new Schedule(this, 'FlushTicker', {
      description: `shardwal flush ticker: ${props.ticker.ticksPerInvocation} tick(s) of ${props.ticker.tickIntervalMs} ms per invocation`,
      schedule: everyMinutes(props.ticker.rateMinutes),
      // No flexible window and no retries: a late or repeated tick would burst
      // flushes; the next scheduled invocation is the retry.
      timeWindow: TimeWindow.off(),
      target: this.invoke('FlushTicker', props.flushTick, {
        retryAttempts: 0,
        maxEventAge: Duration.minutes(1),
      }),
    });
    // Scheduler invokes asynchronously; Lambda's own async retries (two by
    // default, minutes later) would be the same late burst.
    props.flushTick.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.minutes(1) });

    this.export = new Schedule(this, 'Export', {
      description: 'shardwal export: fold WAL objects into AOF exports, retire covered WAL',
      schedule: everyMinutes(props.exportEveryMinutes),
      timeWindow: TimeWindow.off(),
      target: this.invoke('Export', props.exportFn, { retryAttempts: 2 }),
    });
    this.verify = new Schedule(this, 'Verify', {
      description: 'shardwal recovery: verify every shard against S3, heal what is provably safe',
      schedule: everyMinutes(props.verifyEveryMinutes),
      timeWindow: TimeWindow.off(),
      target: this.invoke('Verify', props.recover, {
        retryAttempts: 2,
        input: ScheduleTargetInput.fromObject(VERIFY_INPUT),
      }),
    });
  }

  /**
   * A `LambdaInvoke` target with its own role, trusted by Scheduler for this
   * account's default schedule group only. The L2 grants the role
   * `lambda:InvokeFunction` on the function and on `<function>:*` (versions
   * and aliases); cdk-nag IAM5 reports the latter, acknowledged here.
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
    acknowledgeWildcardResources(
      role,
      [`${arnToken(fn)}:*`],
      'LambdaInvoke grants InvokeFunction on one function and its versions/aliases (:*); this role can invoke nothing else.',
    );
    return new LambdaInvoke(fn, { ...options, role });
  }
}
