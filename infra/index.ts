/**
 * The public CDK API of shardwal: the service as a construct for any app, and
 * the cdk-nag checks the app registers once.
 *
 * ```ts
 * import { ShardwalService, addShardwalChecks } from 'shardwal/cdk';
 * const app = new App();
 * const stack = new Stack(app, 'Ingest');
 * new ShardwalService(stack, 'Prod', { stage: 'prod', flushIntervalMs: 1000 });
 * addShardwalChecks(app);
 * ```
 *
 * docs/deploy.md, "Use the construct in your own app", has the props and an
 * example the package's test synthesizes from the packed tarball.
 */

export type { CapacityRange } from './capacity-settings.js';
export { addShardwalChecks, shardwalNagPacks } from './checks.js';
export { ALARM_PUBLISH_SID, NO_ALARM_DESTINATION_WARNING } from './constructs/alarms.js';
export { DENY_OVERWRITE_CONDITIONS, DENY_OVERWRITE_SID } from './constructs/bucket-policy.js';
export { IMMUTABLE_KEY_PATTERNS, KEY_PATTERNS } from './constructs/key-patterns.js';
export { IMPORTED_KEY_WARNING } from './constructs/key-use.js';
export type { GrantProduceOptions } from './constructs/producer-policy.js';
export { PRODUCER_QUEUE_ACTIONS } from './constructs/producer-policy.js';
export { TICKER_SCHEDULED_TIME_FIELD } from './constructs/schedules.js';
export { BROUGHT_BUCKET_WARNING, TABLE_LAYOUT } from './constructs/storage.js';
export { ContextError, PropError } from './context-values.js';
export type { DeployLogLevel } from './log-settings.js';
export type { PinnableResource, PinnedLogicalIds } from './pinned-ids.js';
export type {
  CapacityProps,
  CapacityRangeProps,
  ServiceParts,
  ServiceSettingProps,
  ShardwalServiceProps,
  TablesProps,
} from './service-props.js';
export type { ApiAuthorizer, DeploySettings } from './settings.js';
export { ShardwalService } from './shardwal-service.js';
