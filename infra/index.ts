/**
 * The public CDK API of shardwal: the service as a construct for any app, and
 * the cdk-nag checks the app registers once.
 *
 * ```ts
 * const app = new App();
 * const stack = new Stack(app, 'Ingest');
 * new ShardwalService(stack, 'Prod', { settings: { stage: 'prod', flushIntervalMs: 1000 } });
 * addShardwalChecks(app);
 * ```
 */
export { addShardwalChecks, shardwalNagPacks } from './checks.js';
export { NO_ALARM_DESTINATION_WARNING } from './constructs/alarms.js';
export { IMMUTABLE_KEY_PATTERNS, KEY_PATTERNS } from './constructs/key-patterns.js';
export type { GrantProduceOptions } from './constructs/producer-policy.js';
export { TICKER_SCHEDULED_TIME_FIELD } from './constructs/schedules.js';
export type { PinnableResource, PinnedLogicalIds } from './pinned-ids.js';
export {
  ContextError,
  type DeploySettings,
  type SettingsKey,
  type ShardwalSettings,
  validateDeploySettings,
} from './settings.js';
export { ShardwalService, type ShardwalServiceProps } from './shardwal-service.js';
