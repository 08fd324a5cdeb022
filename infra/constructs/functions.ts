/**
 * The Lambda functions: one per entry point in `functions/`, each with its own
 * role (no AWS managed policies; `permissions.ts` grants exactly what each
 * uses), its own log group with a retention, JSON logs filtered by Lambda's
 * advanced logging controls (`LOGGING`), and the reserved concurrency of
 * `concurrency.ts` unless the settings turn reservations off.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { RemovalPolicy } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  ApplicationLogLevel,
  Architecture,
  Code,
  LoggingFormat,
  SystemLogLevel,
} from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { RESOURCE_ENV } from '../../lib/config.js';
import { METRICS_NAMESPACE } from '../../lib/observability/metric-names.js';
import { SERVICE_NAME } from '../../lib/observability/telemetry.js';
import { BUNDLE_DIR, BUNDLE_FILE, REPO_ROOT } from '../build/paths.js';
import type { DeploySettings } from '../settings.js';
import { bundledCode, RUNTIME } from './bundling.js';
import { reservedConcurrencyOf } from './concurrency.js';
import {
  type Deployed,
  HANDLERS,
  type HandlerName,
  type OmittableHandlerName,
  OPTIONAL_HANDLERS,
  type OptionalHandlerName,
  PART_HANDLERS,
} from './handlers.js';
import type { FunctionSize } from './sizing.js';

export { type Deployed, HANDLERS, type HandlerName, OPTIONAL_HANDLERS, type OptionalHandlerName };

/** Repository root (holds package-lock.json and `functions/`); the package root when run from `dist/`. */
export const PROJECT_ROOT = REPO_ROOT;

/**
 * The prebuilt bundle of `file` when this module runs compiled from the
 * package (`dist/`), where the build put one per handler; undefined when it
 * runs from the sources, which are bundled at synth instead. So an app that
 * installs the package needs neither esbuild nor the handlers' sources.
 */
function prebuiltBundle(file: string): string | undefined {
  if (!import.meta.url.endsWith('.js')) return undefined;
  const dir = join(BUNDLE_DIR, file);
  if (!existsSync(join(dir, BUNDLE_FILE))) {
    throw new Error(
      `the package has no bundle for ${file} at ${dir}: it was packed without its build`,
    );
  }
  return dir;
}

/** Directory of the Lambda entry points. */
export const FUNCTIONS_DIR = join(PROJECT_ROOT, 'functions');

/** Retention of every function's logs. */
export const LOG_RETENTION = RetentionDays.ONE_MONTH;

/**
 * Lambda's logging controls, the same for every function. JSON, because
 * level filtering needs it (Powertools writes JSON lines either way). System
 * level WARN drops the START, END and REPORT lines of every invocation (265
 * bytes each, as many as the puts); Lambda's own metrics (duration, errors,
 * throttles) still count every invocation. The application level is the
 * `logLevel` setting, at most INFO (`log-settings.ts`: the EMF lines).
 */
const LOGGING = {
  format: LoggingFormat.JSON,
  systemLevel: SystemLogLevel.WARN,
} as const;

/** Props of `Functions`. */
export interface FunctionsProps {
  settings: DeploySettings;
  /** Stage name: every metric and log line carries it. */
  stage: string;
  /** Memory and timeout per function (`functionSizes`). */
  sizes: Record<HandlerName, FunctionSize>;
  /** Whether each optional or part handler is deployed (`OPTIONAL_HANDLERS`, `PART_HANDLERS`). */
  optional: Record<OmittableHandlerName, boolean>;
  tableName: string;
  bucketName: string;
  flushQueueUrl: string;
  /**
   * Prebuilt code for every function instead of bundling `functions/*.ts`.
   * Template tests pass inline code so they need neither esbuild nor the
   * handler files; deployments leave it unset.
   */
  code?: Code;
}

/** The functions, by handler name: every handler, the optional ones when on. */
export class Functions extends Construct {
  readonly byName: Deployed<NodejsFunction>;
  readonly logGroups: Deployed<LogGroup>;

  constructor(scope: Construct, id: string, props: FunctionsProps) {
    super(scope, id);
    const environment = {
      [RESOURCE_ENV.tableName]: props.tableName,
      [RESOURCE_ENV.bucketName]: props.bucketName,
      [RESOURCE_ENV.flushQueueUrl]: props.flushQueueUrl,
      [RESOURCE_ENV.stage]: props.stage,
      ...props.settings.environment,
      POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
      POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
      // Powertools obeys Lambda's level (AWS_LAMBDA_LOG_LEVEL) over this one;
      // kept equal so that the two can never be read as disagreeing.
      POWERTOOLS_LOG_LEVEL: props.settings.logLevel,
    };
    const logGroups = {} as Deployed<LogGroup>;
    const make = (name: HandlerName): NodejsFunction => {
      const file = HANDLERS[name];
      const size = props.sizes[name];
      const logGroup = new LogGroup(this, `${name}Logs`, {
        retention: LOG_RETENTION,
        // Logs outlive a deleted stack for their retention: post-mortems need them.
        removalPolicy: RemovalPolicy.RETAIN,
      });
      logGroups[name] = logGroup;
      const role = new Role(this, `${name}Role`, {
        assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
        description: `shardwal ${file}: exactly the actions this handler uses`,
      });
      // Instead of AWSLambdaBasicExecutionRole, which may write to every log group.
      logGroup.grantWrite(role);
      const common = {
        description: `shardwal ${file}`,
        runtime: RUNTIME,
        // Graviton: about 20% cheaper per GB-second; every dependency is plain JS.
        architecture: Architecture.ARM_64,
        memorySize: size.memoryMb,
        timeout: size.timeout,
        environment,
        logGroup,
        loggingFormat: LOGGING.format,
        applicationLogLevelV2: ApplicationLogLevel[props.settings.logLevel],
        systemLogLevelV2: LOGGING.systemLevel,
        role,
        reservedConcurrentExecutions: reservedConcurrencyOf(
          name,
          props.settings.reservedConcurrency,
          props.settings.service.flushWorkers,
        ),
      };
      if (props.code) {
        return new NodejsFunction(this, name, {
          ...common,
          code: props.code,
          handler: 'index.handler',
        });
      }
      const prebuilt = prebuiltBundle(file);
      if (prebuilt) {
        return new NodejsFunction(this, name, {
          ...common,
          code: Code.fromAsset(prebuilt),
          handler: 'index.handler',
        });
      }
      const entry = join(FUNCTIONS_DIR, `${file}.ts`);
      if (!existsSync(entry)) {
        throw new Error(
          `handler entry ${entry} does not exist; every HANDLERS entry must have a file in functions/`,
        );
      }
      return new NodejsFunction(this, name, {
        ...common,
        code: bundledCode(file),
        handler: 'index.handler',
      });
    };
    const omittable: readonly HandlerName[] = [...OPTIONAL_HANDLERS, ...PART_HANDLERS];
    const deployed = (Object.keys(HANDLERS) as HandlerName[]).filter(
      (name) => !omittable.includes(name) || props.optional[name as OmittableHandlerName],
    );
    this.byName = Object.fromEntries(
      deployed.map((name) => [name, make(name)]),
    ) as Deployed<NodejsFunction>;
    this.logGroups = logGroups;
  }
}
