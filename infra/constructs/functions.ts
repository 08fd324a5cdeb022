/**
 * The Lambda functions: one per entry point in `functions/`, each with its own
 * role (no AWS managed policies; `permissions.ts` grants exactly what each
 * uses) and its own log group with a retention.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RemovalPolicy } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, type Code } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { RESOURCE_ENV } from '../../lib/config.js';
import { METRICS_NAMESPACE } from '../../lib/observability/metric-names.js';
import type { DeploySettings } from '../settings.js';
import { BUNDLING, RUNTIME } from './bundling.js';
import type { FunctionSize } from './sizing.js';

/** Every deployed handler and its entry file in `functions/`. */
export const HANDLERS = {
  putHttp: 'put-http',
  statusHttp: 'status-http',
  putSqs: 'put-sqs',
  flushTick: 'flush-tick',
  flushWorker: 'flush-worker',
  export: 'export',
  recover: 'recover',
} as const;
export type HandlerName = keyof typeof HANDLERS;

/** Repository root (holds package-lock.json and `functions/`). */
export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Directory of the Lambda entry points. */
export const FUNCTIONS_DIR = join(PROJECT_ROOT, 'functions');

/** Service name of logs and metrics (Powertools adds it as the `service` dimension). */
export const SERVICE_NAME = 'shardwal';

/** Retention of every function's logs. */
export const LOG_RETENTION = RetentionDays.ONE_MONTH;

/** Props of `Functions`. */
export interface FunctionsProps {
  settings: DeploySettings;
  /** Memory and timeout per function (`functionSizes`). */
  sizes: Record<HandlerName, FunctionSize>;
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

/** The seven functions, by handler name. */
export class Functions extends Construct {
  readonly byName: Record<HandlerName, NodejsFunction>;

  constructor(scope: Construct, id: string, props: FunctionsProps) {
    super(scope, id);
    const environment = {
      [RESOURCE_ENV.tableName]: props.tableName,
      [RESOURCE_ENV.bucketName]: props.bucketName,
      [RESOURCE_ENV.flushQueueUrl]: props.flushQueueUrl,
      ...props.settings.environment,
      POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
      POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
      NODE_OPTIONS: '--enable-source-maps',
    };
    const make = (name: HandlerName): NodejsFunction => {
      const file = HANDLERS[name];
      const size = props.sizes[name];
      const logGroup = new LogGroup(this, `${name}Logs`, {
        retention: LOG_RETENTION,
        // Logs outlive a deleted stack for their retention: post-mortems need them.
        removalPolicy: RemovalPolicy.RETAIN,
      });
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
        role,
      };
      if (props.code) {
        return new NodejsFunction(this, name, {
          ...common,
          code: props.code,
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
        entry,
        projectRoot: PROJECT_ROOT,
        depsLockFilePath: join(PROJECT_ROOT, 'package-lock.json'),
        bundling: BUNDLING,
      });
    };
    this.byName = Object.fromEntries(
      (Object.keys(HANDLERS) as HandlerName[]).map((name) => [name, make(name)]),
    ) as Record<HandlerName, NodejsFunction>;
  }
}
