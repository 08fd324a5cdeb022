/**
 * cdk-nag acknowledgements hold whatever the stack's env: env-agnostic,
 * account only, region only, both, each directly in an App and inside a
 * Stage (as CDK Pipelines deploys). A concrete account or region changes
 * how cdk-nag names a wildcard resource, so an acknowledgement written for
 * one env shape would not silence the finding in another. Each shape holds
 * a service with every part and one with the app's key, bucket and table
 * and parts left out, each granted to a producer and a reader.
 */
import { App, type Environment, Stack, Stage } from 'aws-cdk-lib';
import { Table } from 'aws-cdk-lib/aws-dynamodb';
import { AccountRootPrincipal, Role } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { describe, expect, it } from 'vitest';
import { addShardwalChecks } from '../../infra/checks.js';
import { ShardwalService } from '../../infra/shardwal-service.js';
import { cdkJsonContext, INLINE_CODE, nagReport } from './support.js';

const ENVS: Record<string, Environment | undefined> = {
  'env-agnostic': undefined,
  'account only': { account: '123456789012' },
  'region only': { region: 'eu-west-1' },
  'account and region': { account: '123456789012', region: 'eu-west-1' },
};

/**
 * An app holding, in a stack with `env`, in a Stage or not: a service with
 * every part, and a lean one on the app's key, bucket and table, with no
 * HTTP API, no standard SQS queue and no dashboard; each granted to a
 * producer and a reader. Returns the scope the checks run on.
 */
function build(env: Environment | undefined, inStage: boolean) {
  const app = new App({ context: cdkJsonContext(), builtinCloudFormationValidation: false });
  const scope = inStage ? new Stage(app, 'Prod') : app;
  const stack = new Stack(scope, 'Ingest', env ? { env } : {});
  const full = new ShardwalService(stack, 'Service', {
    stage: 'prod',
    producerAccounts: ['111122223333'],
    functionCode: INLINE_CODE,
  });
  const lean = new ShardwalService(stack, 'Lean', {
    stage: 'lean',
    alarmEmail: 'oncall@example.com',
    key: new Key(stack, 'DataKey', { enableKeyRotation: true }),
    bucket: Bucket.fromBucketName(stack, 'Rows', 'acme-rows'),
    table: Table.fromTableName(stack, 'Batches', 'acme-batches'),
    httpApi: false,
    sqsIngest: false,
    dashboard: false,
    functionCode: INLINE_CODE,
  });
  for (const service of [full, lean]) {
    const producer = new Role(service, 'Producer', { assumedBy: new AccountRootPrincipal() });
    service.grantProduce(producer, { shards: ['orders-*'] });
    const reader = new Role(service, 'Reader', { assumedBy: new AccountRootPrincipal() });
    service.grantRead(reader);
  }
  addShardwalChecks(scope);
  return { app, scope, stack };
}

describe('cdk-nag acknowledgements', () => {
  for (const [name, env] of Object.entries(ENVS)) {
    for (const inStage of [false, true]) {
      it(`leave no unacknowledged finding with an ${name} stack${inStage ? ' inside a Stage' : ''}`, () => {
        const { scope } = build(env, inStage);
        expect(nagReport(scope)).toEqual([]);
      });
    }
  }

  it('synthesize a Stage with a concrete env (the validation plugins run)', () => {
    const { app } = build(ENVS['account and region'], true);
    expect(() => app.synth()).not.toThrow();
  });
});
