/**
 * What the deployed stack says about cost, read from the synthesized
 * CloudFormation template of this repository's app (cdk.json's context, the
 * same `createShardwalApp` that `npm run synth` runs, with inline function
 * code so nothing is bundled): each function's memory, timeout, architecture
 * and log level; log retention; alarms; schedules; the table's billing mode,
 * point-in-time recovery and TTL attribute; the bucket's versioning and
 * noncurrent-version expiry; the HTTP API's access-log format; the SQS
 * event source's batch size. Nothing here is typed in twice.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { Code } from 'aws-cdk-lib/aws-lambda';
import { HANDLERS, type HandlerName, PROJECT_ROOT } from '../../infra/constructs/functions.js';
import { OPTIONAL_HANDLERS, type OptionalHandlerName } from '../../infra/constructs/handlers.js';
import type { DeploySettings } from '../../infra/settings.js';
import { createShardwalApp } from '../../infra/shardwal-app.js';
import { InternalError } from '../../lib/errors.js';

/** Powertools' level when neither POWERTOOLS_LOG_LEVEL nor Lambda's log level is set. */
const POWERTOOLS_DEFAULT_LOG_LEVEL = 'INFO';

/** One deployed function. */
interface FunctionFacts {
  memoryMb: number;
  timeoutSeconds: number;
  architecture: 'arm64' | 'x86_64';
  /** The level its logger runs at. */
  logLevel: string;
  /** Where the level came from. */
  logLevelSource: string;
  /** Lambda's level for its own platform records (START, END, REPORT); undefined: all of them, as text. */
  systemLogLevel: string | undefined;
  logRetentionDays: number | undefined;
}

/** A schedule and how often it fires. */
interface ScheduleFacts {
  id: string;
  expression: string;
  /** Invocations per hour. */
  perHour: number;
}

/** Cost-relevant facts of the deployment. */
export interface DeploymentFacts {
  settings: DeploySettings;
  /** Every deployed function; a function a setting turns on is absent without it. */
  functions: Record<Exclude<HandlerName, OptionalHandlerName>, FunctionFacts> &
    Partial<Record<OptionalHandlerName, FunctionFacts>>;
  alarms: number;
  schedules: ScheduleFacts[];
  table: { billingMode: string; pitr: boolean; ttlAttribute: string | undefined };
  bucket: { versioned: boolean; noncurrentDays: number | undefined };
  /** The HTTP API stage's access-log format (one line per request), when logging is on. */
  apiAccessLogFormat: string | undefined;
  /** Batch size of the SQS ingest event source. */
  ingestBatchSize: number;
  /** Log groups with a metric filter (filters are free; listed for completeness). */
  metricFilters: number;
}

interface Resource {
  Type: string;
  Properties?: Record<string, unknown>;
}

/** Synthesizes the app with cdk.json's context plus `context` and reads the facts. */
export function deploymentFacts(context: Record<string, unknown> = {}): DeploymentFacts {
  const cdkJson = JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  };
  const { stack } = createShardwalApp({
    context: { ...cdkJson.context, ...context },
    builtinCloudFormationValidation: false,
    functionCode: Code.fromInline('export const handler = async () => ({});'),
  });
  const template = Template.fromStack(stack).toJSON() as { Resources: Record<string, Resource> };
  const resources = Object.entries(template.Resources);
  const ofType = (type: string) => resources.filter(([, r]) => r.Type === type);

  const retention = new Map<string, number | undefined>();
  for (const [id, r] of ofType('AWS::Logs::LogGroup')) {
    retention.set(id, r.Properties?.RetentionInDays as number | undefined);
  }
  const functions = {} as DeploymentFacts['functions'];
  for (const [name, file] of Object.entries(HANDLERS) as [HandlerName, string][]) {
    const found = ofType('AWS::Lambda::Function').find(
      ([, r]) => r.Properties?.Description === `shardwal ${file}`,
    );
    if (!found) {
      // A function a setting turns on (the table committer) is absent from the default deployment.
      if ((OPTIONAL_HANDLERS as readonly string[]).includes(name)) continue;
      throw new InternalError(`template: no function described as "shardwal ${file}"`);
    }
    const p = found[1].Properties!;
    const env = ((p.Environment as { Variables?: Record<string, string> })?.Variables ??
      {}) as Record<string, string>;
    const logging = (p.LoggingConfig ?? {}) as {
      ApplicationLogLevel?: string;
      SystemLogLevel?: string;
      LogGroup?: { Ref?: string };
    };
    const [logLevel, logLevelSource] = env.POWERTOOLS_LOG_LEVEL
      ? [env.POWERTOOLS_LOG_LEVEL, 'POWERTOOLS_LOG_LEVEL']
      : logging.ApplicationLogLevel
        ? [logging.ApplicationLogLevel, 'LoggingConfig.ApplicationLogLevel']
        : [POWERTOOLS_DEFAULT_LOG_LEVEL, 'Powertools default (no level set in the stack)'];
    functions[name] = {
      memoryMb: Number(p.MemorySize ?? 128),
      timeoutSeconds: Number(p.Timeout ?? 3),
      architecture: ((p.Architectures as string[] | undefined)?.[0] ?? 'x86_64') as
        | 'arm64'
        | 'x86_64',
      logLevel: logLevel.toUpperCase(),
      logLevelSource,
      systemLogLevel: logging.SystemLogLevel,
      logRetentionDays: logging.LogGroup?.Ref ? retention.get(logging.LogGroup.Ref) : undefined,
    };
  }

  const schedules = ofType('AWS::Scheduler::Schedule').map(([id, r]) => {
    const expression = String(r.Properties?.ScheduleExpression ?? '');
    return { id, expression, perHour: perHour(expression) };
  });
  const [, table] = single(ofType('AWS::DynamoDB::Table'), 'DynamoDB table');
  const tableProps = table.Properties ?? {};
  const buckets = ofType('AWS::S3::Bucket').filter(
    ([, r]) => r.Properties?.VersioningConfiguration,
  );
  const [, bucket] = single(buckets, 'versioned data bucket');
  const rules = ((
    bucket.Properties?.LifecycleConfiguration as { Rules?: Record<string, unknown>[] }
  )?.Rules ?? []) as {
    NoncurrentVersionExpiration?: { NoncurrentDays?: number };
    Prefix?: string;
    Filter?: unknown;
  }[];
  const stage = ofType('AWS::ApiGatewayV2::Stage')[0]?.[1];
  const ingestMapping = ofType('AWS::Lambda::EventSourceMapping').find(([, r]) =>
    JSON.stringify(r.Properties?.EventSourceArn ?? '').includes('Ingest'),
  );
  return {
    settings: stack.service.settings,
    functions,
    alarms: ofType('AWS::CloudWatch::Alarm').length,
    schedules,
    table: {
      billingMode: String(tableProps.BillingMode ?? 'PROVISIONED'),
      pitr: Boolean(
        (tableProps.PointInTimeRecoverySpecification as { PointInTimeRecoveryEnabled?: boolean })
          ?.PointInTimeRecoveryEnabled,
      ),
      ttlAttribute: (tableProps.TimeToLiveSpecification as { AttributeName?: string } | undefined)
        ?.AttributeName,
    },
    bucket: {
      versioned:
        (bucket.Properties?.VersioningConfiguration as { Status?: string })?.Status === 'Enabled',
      // The bucket-wide rule (no prefix): the spill prefix has a shorter one of its own.
      noncurrentDays: rules.find(
        (r) => r.NoncurrentVersionExpiration && r.Prefix === undefined && r.Filter === undefined,
      )?.NoncurrentVersionExpiration?.NoncurrentDays,
    },
    apiAccessLogFormat: (stage?.Properties?.AccessLogSettings as { Format?: string } | undefined)
      ?.Format,
    ingestBatchSize: Number(ingestMapping?.[1].Properties?.BatchSize ?? 10),
    metricFilters: ofType('AWS::Logs::MetricFilter').length,
  };
}

/** Invocations per hour of a `rate(n unit)` schedule expression. */
export function perHour(expression: string): number {
  const match = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(expression);
  if (!match) throw new InternalError(`schedule expression ${expression}: only rate() is modelled`);
  const n = Number(match[1]);
  const unit = match[2]!.replace(/s$/, '');
  const minutes = unit === 'minute' ? n : unit === 'hour' ? 60 * n : 1440 * n;
  return 60 / minutes;
}

function single<T>(found: [string, T][], what: string): [string, T] {
  if (found.length !== 1)
    throw new InternalError(`template: expected one ${what}, found ${found.length}`);
  return found[0]!;
}
