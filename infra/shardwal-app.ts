/**
 * Builds the CDK app: context → validated settings → the stack, with the
 * cdk-nag AwsSolutions pack as a synthesis-time validation plugin (cdk-nag v3
 * is a policy-validation plugin, not an aspect: an unacknowledged error
 * fails `cdk synth`).
 */
import { App, type AppProps, Validations } from 'aws-cdk-lib';
import type { Code } from 'aws-cdk-lib/aws-lambda';
import { AwsSolutionsChecks } from 'cdk-nag';
import { settingsFromContext } from './settings.js';
import { ShardwalStack } from './shardwal-stack.js';

/** Id (and default CloudFormation name) of the stack. */
export const STACK_ID = 'Shardwal';

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
  const settings = settingsFromContext(
    (key) => app.node.tryGetContext(key),
    Object.keys(app.node.getAllContext()),
  );
  const stack = new ShardwalStack(app, STACK_ID, {
    description: 'shardwal: buffered puts, ticker-driven ordered WAL appends to S3',
    settings,
    ...(functionCode ? { functionCode } : {}),
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
}
