/**
 * The local stack's scheduled jobs: the export function and the scheduled
 * verify, invoked in process on timers (`LocalSchedule`) with the events
 * their AWS schedules send, through the same middy-wrapped handlers. They
 * coordinate with the flush ticker exactly as in AWS, through the shard
 * record's conditional writes: export reads only committed positions and
 * moves the watermark forward only, verify heals only expired leases and aged
 * gaps with the flusher's own conditional writes.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { lambdaContext } from '../../lib/local/lambda-context.js';
import { LocalSchedule, type LocalScheduleStatus } from '../../lib/local/local-schedule.js';
import { LOCAL_SETTINGS } from '../../lib/local/local-settings.js';
import { scheduledEvent, VERIFY_SCHEDULE_INPUT } from '../../lib/local/scheduled-events.js';

/** A scheduled function's handler (`functions/export.ts`, `functions/recover.ts`). */
export type JobHandler = (event: unknown, context: Context) => Promise<unknown>;

/** The deadline each run gets: the deployed functions' timeout (`infra/constructs/sizing.ts`). */
const JOB_TIMEOUT_MS = 15 * 60_000;

/** One job to schedule. */
export interface JobInput {
  handler: JobHandler;
  everyMs: number;
}

/** The running schedules. */
export interface LocalJobs {
  /** Each enabled schedule's counters. */
  status: () => LocalScheduleStatus[];
  /** Stops the schedules; resolves once a running job has ended. */
  stop: () => Promise<void>;
}

/** Starts the enabled jobs (undefined: off). */
export function startLocalJobs(input: {
  export?: JobInput;
  verify?: JobInput;
  /** The TTL sweep: `run` deletes what expired (dynalite has no TTL). */
  sweep?: { run: () => Promise<unknown>; everyMs: number };
  /** The Iceberg table committer (`functions/table-commit.ts`), and its maintenance run. */
  tables?: JobInput & { maintainEveryMs: number };
}): LocalJobs {
  const schedules: LocalSchedule[] = [];
  if (input.export) {
    const { handler, everyMs } = input.export;
    schedules.push(
      new LocalSchedule({
        name: 'export',
        setting: LOCAL_SETTINGS.exportEveryMs.env,
        everyMs,
        run: (cutShort) =>
          handler(
            scheduledEvent('export', randomUUID(), Date.now()),
            lambdaContext('shardwal-export', { timeoutMs: JOB_TIMEOUT_MS, cutShort }),
          ),
      }),
    );
  }
  if (input.verify) {
    const { handler, everyMs } = input.verify;
    schedules.push(
      new LocalSchedule({
        name: 'verify',
        setting: LOCAL_SETTINGS.verifyEveryMs.env,
        everyMs,
        run: (cutShort) =>
          handler(
            { ...VERIFY_SCHEDULE_INPUT },
            lambdaContext('shardwal-recover', { timeoutMs: JOB_TIMEOUT_MS, cutShort }),
          ),
      }),
    );
  }
  if (input.sweep) {
    const { run, everyMs } = input.sweep;
    schedules.push(
      new LocalSchedule({ name: 'sweep', setting: LOCAL_SETTINGS.sweepEveryMs.env, everyMs, run }),
    );
  }
  if (input.tables) {
    const { handler, everyMs, maintainEveryMs } = input.tables;
    for (const [name, event, period] of [
      ['tables', {}, everyMs],
      ['table-maintenance', { maintain: true }, maintainEveryMs],
    ] as const) {
      schedules.push(
        new LocalSchedule({
          name,
          setting: 'SHARDWAL_TABLE_COMMIT_MS',
          everyMs: period,
          run: (cutShort) =>
            handler(
              { ...event },
              lambdaContext('shardwal-table-commit', { timeoutMs: JOB_TIMEOUT_MS, cutShort }),
            ),
        }),
      );
    }
  }
  for (const schedule of schedules) schedule.start();
  return {
    status: () => schedules.map((schedule) => schedule.status()),
    stop: async () => {
      await Promise.all(schedules.map((schedule) => schedule.stop()));
    },
  };
}
