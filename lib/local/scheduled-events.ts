/**
 * What the local schedules send the handlers: the same events EventBridge
 * Scheduler sends the deployed functions (`events/scheduled-export.json`,
 * `events/scheduled-recovery.json`), so the local jobs take the handlers'
 * scheduled path and nothing else.
 */
import { RecoverMode } from '../recovery/recover-event.js';
import { LOCAL_RESOURCES } from './data-dir.js';

/** The shape of an EventBridge Scheduler "Scheduled Event" (the export schedule's input). */
export interface ScheduledEvent {
  version: '0';
  id: string;
  'detail-type': 'Scheduled Event';
  source: 'aws.scheduler';
  account: string;
  time: string;
  region: string;
  resources: string[];
  detail: Record<string, never>;
}

/** The scheduled event of `schedule` (e.g. `Export`) firing at `nowMs`. */
export function scheduledEvent(schedule: string, id: string, nowMs: number): ScheduledEvent {
  return {
    version: '0',
    id,
    'detail-type': 'Scheduled Event',
    source: 'aws.scheduler',
    account: '000000000000',
    time: new Date(nowMs).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region: LOCAL_RESOURCES.region,
    resources: [
      `arn:aws:scheduler:${LOCAL_RESOURCES.region}:000000000000:schedule/default/shardwal-local-${schedule}`,
    ],
    detail: {},
  };
}

/** The verify schedule's input (the deployed schedule sends the same; on-demand calls name a shard). */
export const VERIFY_SCHEDULE_INPUT = { mode: RecoverMode.verify } as const;
