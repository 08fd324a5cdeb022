/**
 * Builds this repository's CDK app: context (`cdk.json`, `-c`) → one stack
 * per stage holding the `ShardwalService`, with cdk-nag's AwsSolutions and
 * Serverless packs as synthesis-time validation plugins (an unacknowledged
 * error fails `cdk synth`).
 */
import { App, type AppProps } from 'aws-cdk-lib';
import type { Code } from 'aws-cdk-lib/aws-lambda';
import { addShardwalChecks } from './checks.js';
import { contextSettings, DEPLOY_CONTEXT, validateDeploySettings } from './settings.js';
import { ShardwalStack } from './shardwal-stack.js';

/** Id (and CloudFormation name) of the default stage's stack. */
export const STACK_ID = 'Shardwal';

/** The stage `cdk.json` deploys unless `-c stage=...` says otherwise. */
export const DEFAULT_STAGE = 'default';

/** The stack of `stage`: `Shardwal` for the default stage (existing deployments), `Shardwal-<stage>` otherwise. */
export function stackIdFor(stage: string): string {
  return stage === DEFAULT_STAGE ? STACK_ID : `${STACK_ID}-${stage}`;
}

/** Options of `createShardwalApp`. */
export interface ShardwalAppOptions extends AppProps {
  /** Prebuilt code for every function (template tests); unset, `functions/*.ts` are bundled. */
  functionCode?: Code;
}

/** The app and its one stack. */
export function createShardwalApp(options: ShardwalAppOptions = {}): {
  app: App;
  stack: ShardwalStack;
} {
  const { functionCode, ...appProps } = options;
  const app = new App(appProps);
  const raw = contextSettings(app);
  // Validated here for the stage (the stack's name), and again by the service.
  const stage = validateDeploySettings(raw).stage ?? DEFAULT_STAGE;
  const stack = new ShardwalStack(app, stackIdFor(stage), {
    description: `shardwal (${stage}): buffered puts, ticker-driven ordered WAL appends to S3`,
    settings: { ...raw, [DEPLOY_CONTEXT.stage]: stage },
    ...(functionCode ? { functionCode } : {}),
  });
  addShardwalChecks(app);
  return { app, stack };
}
