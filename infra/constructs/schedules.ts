/**
 * EventBridge Scheduler drives the flush ticker, the export and the scheduled
 * verify. The ticker's rate and the ticks inside one invocation both come
 * from the one flush interval (`planSchedule`): under a minute, one
 * invocation a minute runs `60 s / interval` ticks; whole minutes map to the
 * rate directly.
 */
import { Duration } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Schedule, ScheduleExpression, ScheduleTargetInput, TimeWindow } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import { Construct } from 'constructs';
import type { SchedulePlan } from '../../lib/ticker/schedule-plan.js';

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
      target: new LambdaInvoke(props.flushTick, { retryAttempts: 0, maxEventAge: Duration.minutes(1) }),
    });
    // Scheduler invokes asynchronously; Lambda's own async retries (two by
    // default, minutes later) would be the same late burst.
    props.flushTick.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.minutes(1) });
    this.export = new Schedule(this, 'Export', {
      description: 'shardwal export: fold WAL objects into AOF exports, retire covered WAL',
      schedule: everyMinutes(props.exportEveryMinutes),
      timeWindow: TimeWindow.off(),
      target: new LambdaInvoke(props.exportFn, { retryAttempts: 2 }),
    });
    this.verify = new Schedule(this, 'Verify', {
      description: 'shardwal recovery: verify every shard against S3, heal what is provably safe',
      schedule: everyMinutes(props.verifyEveryMinutes),
      timeWindow: TimeWindow.off(),
      target: new LambdaInvoke(props.recover, {
        retryAttempts: 2,
        input: ScheduleTargetInput.fromObject(VERIFY_INPUT),
      }),
    });
  }
}
