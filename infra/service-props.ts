/**
 * The typed props of `ShardwalService` and their validation. Each setting is
 * a typed field (numbers carry their unit in the name: `flushIntervalMs`,
 * `exportEveryMinutes`; choices are string unions), validated at synth by
 * the same rules as this repository's CDK context (`settings.ts`, which runs
 * the service's own `validateSettings`), so synth refuses exactly what a cold
 * start would. An error is a `PropError` naming the prop
 * (`ShardwalService props.capacity.table.write={"min":0,"max":5}: …`) and
 * keeping the rule's own error as its cause.
 *
 * The app of this repository maps its context onto these props in one place
 * (`context-props.ts`).
 */
import type { RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { Code } from 'aws-cdk-lib/aws-lambda';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import {
  CAPACITY_MODE_ENV,
  DURABLE_PUTS_ENV,
  SETTINGS,
  type SettingName,
  SPILL_BYTES_ENV,
} from '../lib/config.js';
import { ConfigError } from '../lib/errors.js';
import { CAPACITY_CONTEXT, CAPACITY_TARGETS, type CapacityRange } from './capacity-settings.js';
import { ContextError, PropError } from './context-values.js';
import type { DeployLogLevel } from './log-settings.js';
import type { PinnedLogicalIds } from './pinned-ids.js';
import {
  type ApiAuthorizer,
  DEPLOY_CONTEXT,
  type DeploySettings,
  settingsFromContext,
} from './settings.js';
import { TABLE_CONTEXT } from './table-settings.js';

/** The service settings of the README's configuration table, camelCased: whole numbers in their unit. */
export type ServiceSettingProps = { readonly [K in SettingName]?: number };

/** Read and write ranges of one capacity target; unset, the documented default. */
export interface CapacityRangeProps {
  readonly read?: CapacityRange;
  readonly write?: CapacityRange;
}

/** Provisioned capacity (with `capacityMode: 'provisioned'` only), by target. */
export interface CapacityProps {
  readonly table?: CapacityRangeProps;
  readonly pendingIndex?: CapacityRangeProps;
  readonly registryIndex?: CapacityRangeProps;
}

/** The Iceberg tables (docs/tables.md); unset, no committer is deployed. */
export interface TablesProps {
  /** The shard → table routes (`SHARDWAL_TABLES`), e.g. `*` or `clicks-*=clicks,*`. */
  readonly routes: string;
  /** Each table's typed columns and partitioning (`SHARDWAL_TABLE_SCHEMAS`): the object or its JSON text. */
  readonly schemas?: string | Readonly<Record<string, unknown>>;
  /** A table commits at most this often; default 60000. */
  readonly commitMs?: number;
  /** `glue`: register every table in the Glue Data Catalog (`SHARDWAL_TABLE_CATALOG`); unset, path-based only. */
  readonly catalog?: 'glue';
  /** The Glue database of the tables, with `catalog: 'glue'` (`SHARDWAL_TABLE_GLUE_DATABASE`). */
  readonly glueDatabase?: string;
}

/** Props of `ShardwalService`; all optional. */
export interface ShardwalServiceProps extends ServiceSettingProps {
  /**
   * The stage: a dimension of every metric. 1-32 letters, digits or `-`,
   * starting with a letter; default the stack's name.
   */
  readonly stage?: string;
  /** Durable puts on or off (`SHARDWAL_DURABLE_PUTS`); default on. */
  readonly durablePuts?: boolean;
  /** How the table's capacity is bought; default `on-demand`. */
  readonly capacityMode?: 'on-demand' | 'provisioned';
  /** Auto-scaling ranges of a provisioned table (units a second); refused on demand. */
  readonly capacity?: CapacityProps;
  /** Compressed batch bytes above which a payload spills to S3, or `off`; default by mode. */
  readonly spillBytes?: number | 'off';
  /** The functions' log level, at most INFO (the EMF metric lines); default INFO. */
  readonly logLevel?: DeployLogLevel;
  /** The export schedule's period; default 15. */
  readonly exportEveryMinutes?: number;
  /** The scheduled verify's period; default 60. */
  readonly verifyEveryMinutes?: number;
  /** Subscribe this address to the alarm topic this construct creates. */
  readonly alarmEmail?: string;
  /**
   * An existing SNS topic for every alarm (one wired to a pager) instead of
   * a new one. Its policy must let `cloudwatch.amazonaws.com` publish, and,
   * if it is encrypted, its key's policy let CloudWatch use the key.
   */
  readonly alarmTopic?: ITopic;
  /** Reserve concurrency for the ticker, flush workers, export and recover; default true. */
  readonly reservedConcurrency?: boolean;
  /** Concurrent put-sqs invocations the standard ingest queue may drive (2-1000); default 40. */
  readonly ingestStandardMaxConcurrency?: number;
  /** Concurrent put-sqs invocations the FIFO ingest queue may drive (2-1000); default 10. */
  readonly ingestFifoMaxConcurrency?: number;
  /** 12-digit account ids whose principals may assume the producer role. */
  readonly producerAccounts?: readonly string[];
  /** How the HTTP API authorizes callers; default IAM (SigV4). */
  readonly authorizer?: ApiAuthorizer;
  /** The HTTP API's stage-wide rate limit (requests a second); default 1000. */
  readonly apiRateLimit?: number;
  /** The HTTP API's burst limit; default 2000. */
  readonly apiBurstLimit?: number;
  /** The Iceberg tables; unset, tables are off. */
  readonly tables?: TablesProps;

  /** Whether to create the HTTP API (put and status routes, put-http, status-http); default true. */
  readonly httpApi?: boolean;
  /** Whether to create the standard SQS ingest queue (and its DLQ); default true. */
  readonly sqsIngest?: boolean;
  /** Whether to create the FIFO SQS ingest queue (and its DLQ); default true. */
  readonly fifoIngest?: boolean;
  /** Whether to create the CloudWatch dashboard; default true (the alarms are always on). */
  readonly dashboard?: boolean;

  /**
   * An existing DynamoDB table with shardwal's layout (`TABLE_LAYOUT`: keys
   * `pk`/`sk`, the sparse `pending` and `registry` indexes, TTL on
   * `expiresAt`) instead of a new one. Capacity settings then do nothing.
   */
  readonly table?: ITable;
  /**
   * An existing bucket instead of a new one. The service then adds none of
   * the bucket's guardrails (overwrite deny, TLS only, versioning,
   * lifecycle): synth warns until that is acknowledged (docs/deploy.md).
   */
  readonly bucket?: IBucket;
  /**
   * A customer managed KMS key for the data at rest: the table, the data
   * bucket (SSE-KMS with a bucket key), every queue and the alarm topic this
   * construct creates. Every role that reads or writes them is granted its
   * use. With a key created in the app, its policy is extended so that
   * CloudWatch alarms can publish to the encrypted topic and SNS can
   * dead-letter undeliverable notifications; an imported key's policy must
   * allow that itself (docs/deploy.md). Unset: AWS owned and managed keys.
   */
  readonly key?: IKey;
  /** What deleting the stack does to the data: table, buckets, ingest queues. Default RETAIN. */
  readonly removalPolicy?: RemovalPolicy;
  /** The table's deletion protection. Default on. */
  readonly deletionProtection?: boolean;
  /**
   * Logical ids to keep for the stateful resources (table, buckets, queues),
   * when adopting a stack deployed under other construct paths: a changed id
   * would replace the resource and orphan the retained one with its data.
   */
  readonly logicalIds?: PinnedLogicalIds;
  /** Prebuilt code for every function (template tests); unset, the package's bundles. */
  readonly functionCode?: Code;
}

/** A context key of the rules and the prop path that sets it. */
const PROP_OF_KEY: Record<string, string> = {
  [DEPLOY_CONTEXT.jwtIssuer]: 'authorizer.issuer',
  [DEPLOY_CONTEXT.jwtAudience]: 'authorizer.audience',
  [TABLE_CONTEXT.tables]: 'tables.routes',
  [TABLE_CONTEXT.tableSchemas]: 'tables.schemas',
  [TABLE_CONTEXT.tableCommitMs]: 'tables.commitMs',
  [TABLE_CONTEXT.tableCatalog]: 'tables.catalog',
  [TABLE_CONTEXT.tableGlueDatabase]: 'tables.glueDatabase',
  ...Object.fromEntries(
    CAPACITY_TARGETS.flatMap((target) =>
      (['read', 'write'] as const).map((dir) => [
        CAPACITY_CONTEXT[target][dir],
        `capacity.${target}.${dir}`,
      ]),
    ),
  ),
};

/** The value at a dotted prop path. */
function valueAt(props: object, path: string): unknown {
  let value: unknown = props;
  for (const part of path.split('.')) {
    value = value === null || typeof value !== 'object' ? undefined : (value as never)[part];
  }
  return value;
}

/** The settings key of a service setting's environment name (`SHARDWAL_FLUSH_INTERVAL_MS` → `flushIntervalMs`). */
function settingKeyOfEnv(env: string): string {
  const named = Object.entries(SETTINGS).find(([, s]) => s.env === env)?.[0];
  if (named) return named;
  const deploy: Record<string, string> = {
    [DURABLE_PUTS_ENV]: DEPLOY_CONTEXT.durablePuts,
    [CAPACITY_MODE_ENV]: DEPLOY_CONTEXT.capacityMode,
    [SPILL_BYTES_ENV]: DEPLOY_CONTEXT.spillBytes,
  };
  return deploy[env] ?? env;
}

/** `true`/`false` as the rules read them; anything else is refused naming the prop. */
function flag(props: ShardwalServiceProps, prop: 'durablePuts' | 'reservedConcurrency') {
  const value = props[prop];
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') throw new PropError(prop, value, 'expected true or false');
  return value ? 'on' : 'off';
}

/** A range as the rules read it (`"<min>-<max>"`); anything but two whole numbers is refused. */
function rangeText(path: string, range: CapacityRange | undefined): string | undefined {
  if (range === undefined) return undefined;
  const { min, max } = (range ?? {}) as Partial<CapacityRange>;
  if (!Number.isInteger(min) || !Number.isInteger(max)) {
    throw new PropError(path, range, 'expected { min, max }, whole units a second');
  }
  return `${min}-${max}`;
}

/** The props as the context's rules read them, by context key. */
function rawOf(props: ShardwalServiceProps): Record<string, unknown> {
  const raw: Record<string, unknown> = {};
  for (const name of Object.keys(SETTINGS) as SettingName[]) raw[name] = props[name];
  raw[DEPLOY_CONTEXT.stage] = props.stage;
  raw[DEPLOY_CONTEXT.durablePuts] = flag(props, 'durablePuts');
  raw[DEPLOY_CONTEXT.reservedConcurrency] = flag(props, 'reservedConcurrency');
  raw[DEPLOY_CONTEXT.capacityMode] = props.capacityMode;
  raw[DEPLOY_CONTEXT.spillBytes] = props.spillBytes;
  raw[DEPLOY_CONTEXT.logLevel] = props.logLevel;
  raw[DEPLOY_CONTEXT.exportEveryMinutes] = props.exportEveryMinutes;
  raw[DEPLOY_CONTEXT.verifyEveryMinutes] = props.verifyEveryMinutes;
  raw[DEPLOY_CONTEXT.alarmEmail] = props.alarmEmail;
  raw[DEPLOY_CONTEXT.ingestStandardMaxConcurrency] = props.ingestStandardMaxConcurrency;
  raw[DEPLOY_CONTEXT.ingestFifoMaxConcurrency] = props.ingestFifoMaxConcurrency;
  raw[DEPLOY_CONTEXT.apiRateLimit] = props.apiRateLimit;
  raw[DEPLOY_CONTEXT.apiBurstLimit] = props.apiBurstLimit;
  if (props.producerAccounts !== undefined) {
    if (!Array.isArray(props.producerAccounts)) {
      throw new PropError('producerAccounts', props.producerAccounts, 'expected a list of ids');
    }
    raw[DEPLOY_CONTEXT.producerAccounts] = props.producerAccounts;
  }
  const authorizer = props.authorizer as Partial<{ kind: string } & ApiAuthorizer> | undefined;
  if (authorizer !== undefined) {
    raw[DEPLOY_CONTEXT.authorizer] = authorizer.kind;
    if (authorizer.kind === 'jwt') {
      raw[DEPLOY_CONTEXT.jwtIssuer] = authorizer.issuer;
      raw[DEPLOY_CONTEXT.jwtAudience] = authorizer.audience;
    }
  }
  for (const target of CAPACITY_TARGETS) {
    for (const dir of ['read', 'write'] as const) {
      const path = `capacity.${target}.${dir}`;
      raw[CAPACITY_CONTEXT[target][dir]] = rangeText(path, props.capacity?.[target]?.[dir]);
    }
  }
  if (props.tables !== undefined) {
    raw[TABLE_CONTEXT.tables] = props.tables.routes ?? null;
    raw[TABLE_CONTEXT.tableSchemas] = props.tables.schemas;
    raw[TABLE_CONTEXT.tableCommitMs] = props.tables.commitMs;
    raw[TABLE_CONTEXT.tableCatalog] = props.tables.catalog;
    raw[TABLE_CONTEXT.tableGlueDatabase] = props.tables.glueDatabase;
    if (!props.tables.routes) {
      throw new PropError(
        'tables.routes',
        props.tables.routes,
        'expected the shard → table routes',
      );
    }
  }
  return raw;
}

/**
 * Every prop beside the service settings, so that a misspelt one (from
 * plain JavaScript, or a stale `settings` bag) is refused rather than
 * ignored. A `Record` over the interface's keys: a prop added to
 * `ShardwalServiceProps` and not here fails to compile.
 */
const OWN_PROPS: Record<Exclude<keyof ShardwalServiceProps, SettingName>, true> = {
  stage: true,
  durablePuts: true,
  capacityMode: true,
  capacity: true,
  spillBytes: true,
  logLevel: true,
  exportEveryMinutes: true,
  verifyEveryMinutes: true,
  alarmEmail: true,
  alarmTopic: true,
  reservedConcurrency: true,
  ingestStandardMaxConcurrency: true,
  ingestFifoMaxConcurrency: true,
  producerAccounts: true,
  authorizer: true,
  apiRateLimit: true,
  apiBurstLimit: true,
  tables: true,
  httpApi: true,
  sqsIngest: true,
  fifoIngest: true,
  dashboard: true,
  table: true,
  bucket: true,
  key: true,
  removalPolicy: true,
  deletionProtection: true,
  logicalIds: true,
  functionCode: true,
};

const KNOWN_PROPS = new Set<string>([...Object.keys(SETTINGS), ...Object.keys(OWN_PROPS)]);

/**
 * Validates the props' settings by the context's rules. Throws `PropError`
 * naming the prop, with the rule's `ConfigError` or `ContextError` as cause.
 */
export function settingsOfProps(props: ShardwalServiceProps): DeploySettings {
  for (const [prop, value] of Object.entries(props)) {
    if (!KNOWN_PROPS.has(prop) && value !== undefined) {
      throw new PropError(prop, value, 'not a ShardwalService prop');
    }
  }
  const raw = rawOf(props);
  try {
    return settingsFromContext((key) => raw[key]);
  } catch (error) {
    const key =
      error instanceof ContextError
        ? error.contextKey
        : error instanceof ConfigError
          ? settingKeyOfEnv(error.setting)
          : undefined;
    if (key === undefined) throw error;
    const path = PROP_OF_KEY[key] ?? key;
    const problem = (error as Error).message.replace(/^.*?=("[^"]*"|[^:]*): /, '');
    throw new PropError(path, valueAt(props, path), problem, { cause: error });
  }
}

/** Which optional parts a service has. */
export interface ServiceParts {
  http: boolean;
  ingest: { standard: boolean; fifo: boolean };
  dashboard: boolean;
}

/**
 * The parts the props leave in, and a `PropError` for a setting of a part
 * left out (it would do nothing, and a setting that silently does nothing
 * hides a mistake), or for a service that nothing could put to.
 */
export function partsOfProps(props: ShardwalServiceProps): ServiceParts {
  const parts: ServiceParts = {
    http: props.httpApi ?? true,
    ingest: { standard: props.sqsIngest ?? true, fifo: props.fifoIngest ?? true },
    dashboard: props.dashboard ?? true,
  };
  const onlyWith: [keyof ShardwalServiceProps, boolean, string][] = [
    ['authorizer', parts.http, 'httpApi'],
    ['apiRateLimit', parts.http, 'httpApi'],
    ['apiBurstLimit', parts.http, 'httpApi'],
    ['ingestStandardMaxConcurrency', parts.ingest.standard, 'sqsIngest'],
    ['ingestFifoMaxConcurrency', parts.ingest.fifo, 'fifoIngest'],
  ];
  for (const [prop, on, part] of onlyWith) {
    if (!on && props[prop] !== undefined) {
      throw new PropError(prop, props[prop], `set only with ${part} (it is false)`);
    }
  }
  if (!parts.http && !parts.ingest.standard && !parts.ingest.fifo) {
    throw new PropError(
      'httpApi',
      props.httpApi,
      'with sqsIngest and fifoIngest false too, nothing could put rows; keep at least one',
    );
  }
  return parts;
}
