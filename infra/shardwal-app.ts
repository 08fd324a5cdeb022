/**
 * Builds this repository's CDK app: context (`cdk.json`, `-c`) → one stack
 * per stage holding the `ShardwalService` (props from `context-props.ts`), with cdk-nag's AwsSolutions and
 * Serverless packs as synthesis-time validation plugins (an unacknowledged
 * error fails `cdk synth`).
 */
import { App, type AppProps } from 'aws-cdk-lib';
import type { Code } from 'aws-cdk-lib/aws-lambda';
import { addShardwalChecks } from './checks.js';
import { DEFAULT_STAGE, stageOfContext } from './context-props.js';
import { ShardwalStack } from './shardwal-stack.js';

export { DEFAULT_STAGE };

/** Id (and CloudFormation name) of the default stage's stack. */
export const STACK_ID = 'Shardwal';

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
  // Validated here for the stage (the stack's name); the stack maps the
  // context onto the service's props (`context-props.ts`).
  const stage = stageOfContext(app);
  const stack = new ShardwalStack(app, stackIdFor(stage), {
    description: `shardwal (${stage}): buffered puts, ticker-driven ordered WAL appends to S3`,
    ...(functionCode ? { functionCode } : {}),
  });
  addShardwalChecks(app);
  return { app, stack };
}
