/**
 * This repository's CDK context (`cdk.json`, `-c key=value`) mapped onto
 * `ShardwalService` props: the one place where context keys meet the
 * construct. The context is validated first by its own rules
 * (`settings.ts`), so a bad value fails naming the context key (or the
 * service setting's environment name), as `cdk synth` always has; what
 * passes is handed over typed. A key the user did not set stays unset, so
 * the functions' environment carries only the settings that were set.
 */
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { Construct, IConstruct } from 'constructs';
import { SETTINGS, type SettingName } from '../lib/config.js';
import { CAPACITY_CONTEXT, CAPACITY_TARGETS } from './capacity-settings.js';
import { isSet } from './context-values.js';
import type { ShardwalServiceProps } from './service-props.js';
import {
  contextSettings,
  DEPLOY_CONTEXT,
  type DeploySettings,
  validateDeploySettings,
} from './settings.js';
import { TABLE_CONTEXT } from './table-settings.js';

/** The stage `cdk.json` deploys unless `-c stage=...` says otherwise. */
export const DEFAULT_STAGE = 'default';

/** The validated context of `scope` (its app's `cdk.json` and `-c`). */
function contextOf(scope: IConstruct): {
  raw: Record<string, unknown>;
  settings: DeploySettings;
} {
  const raw = contextSettings(scope);
  return { raw, settings: validateDeploySettings(raw) };
}

/** The stage the context names, or the default one. */
export function stageOfContext(scope: IConstruct): string {
  return contextOf(scope).settings.stage ?? DEFAULT_STAGE;
}

/**
 * The service's props from the context of `scope`'s app; `scope` is the
 * stack the service goes in (an `alarmTopicArn` becomes a topic there).
 */
export function propsFromContext(scope: Construct): ShardwalServiceProps {
  const { raw, settings: s } = contextOf(scope);
  const given = (key: string) => isSet(raw[key]);
  const when = <T>(key: string, value: T): T | undefined => (given(key) ? value : undefined);
  const service: Partial<Record<SettingName, number>> = {};
  for (const name of Object.keys(SETTINGS) as SettingName[]) {
    if (given(name)) service[name] = s.service[name] as number;
  }
  const capacityGiven = CAPACITY_TARGETS.some((t) =>
    [CAPACITY_CONTEXT[t].read, CAPACITY_CONTEXT[t].write].some(given),
  );
  const tables = s.tables && {
    routes: String(raw[TABLE_CONTEXT.tables]),
    ...(given(TABLE_CONTEXT.tableSchemas)
      ? { schemas: raw[TABLE_CONTEXT.tableSchemas] as string | Record<string, unknown> }
      : {}),
    ...(given(TABLE_CONTEXT.tableCommitMs) ? { commitMs: s.tables.config.commitMs } : {}),
    ...(s.tables.glue ? { catalog: 'glue' as const, glueDatabase: s.tables.glue.database } : {}),
  };
  const props: ShardwalServiceProps = {
    ...service,
    stage: s.stage ?? DEFAULT_STAGE,
    durablePuts: when(DEPLOY_CONTEXT.durablePuts, s.service.durablePuts),
    capacityMode: when(DEPLOY_CONTEXT.capacityMode, s.service.capacityMode),
    capacity: capacityGiven ? s.capacity : undefined,
    spillBytes: when(DEPLOY_CONTEXT.spillBytes, s.service.spillBytes ?? 'off'),
    logLevel: when(DEPLOY_CONTEXT.logLevel, s.logLevel),
    exportEveryMinutes: when(DEPLOY_CONTEXT.exportEveryMinutes, s.exportEveryMinutes),
    verifyEveryMinutes: when(DEPLOY_CONTEXT.verifyEveryMinutes, s.verifyEveryMinutes),
    alarmEmail: s.alarmEmail,
    alarmTopic: s.alarmTopicArn
      ? Topic.fromTopicArn(scope, 'AlarmTopic', s.alarmTopicArn)
      : undefined,
    reservedConcurrency: when(DEPLOY_CONTEXT.reservedConcurrency, s.reservedConcurrency),
    ingestStandardMaxConcurrency: when(
      DEPLOY_CONTEXT.ingestStandardMaxConcurrency,
      s.ingestMaxConcurrency.standard,
    ),
    ingestFifoMaxConcurrency: when(
      DEPLOY_CONTEXT.ingestFifoMaxConcurrency,
      s.ingestMaxConcurrency.fifo,
    ),
    producerAccounts: when(DEPLOY_CONTEXT.producerAccounts, s.producerAccounts),
    authorizer: when(DEPLOY_CONTEXT.authorizer, s.authorizer),
    apiRateLimit: when(DEPLOY_CONTEXT.apiRateLimit, s.apiRateLimit),
    apiBurstLimit: when(DEPLOY_CONTEXT.apiBurstLimit, s.apiBurstLimit),
    tables: tables || undefined,
  };
  return Object.fromEntries(
    Object.entries(props).filter(([, value]) => value !== undefined),
  ) as ShardwalServiceProps;
}
