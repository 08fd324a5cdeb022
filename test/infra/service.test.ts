/**
 * `ShardwalService` as a user's app holds it: a plain `new App()` with no
 * context (none of this repo's cdk.json feature flags), the user's own
 * stacks, the construct instantiated twice, and `addShardwalChecks` applied.
 */
import { App, Annotations as CdkAnnotations, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { beforeAll, describe, expect, it } from 'vitest';
import { logicalIdOf } from '../../infra/constructs/nag.js';
import {
  addShardwalChecks,
  ContextError,
  NO_ALARM_DESTINATION_WARNING,
  PropError,
  ShardwalService,
  type ShardwalServiceProps,
} from '../../infra/index.js';
import { ConfigError } from '../../lib/errors.js';
import { INLINE_CODE, nagReport } from './support.js';

/** Properties that would give a resource a fixed physical name. */
const NAME_PROPERTIES: Record<string, string[]> = {
  'AWS::DynamoDB::Table': ['TableName'],
  'AWS::S3::Bucket': ['BucketName'],
  'AWS::SQS::Queue': ['QueueName'],
  'AWS::Lambda::Function': ['FunctionName'],
  'AWS::SNS::Topic': ['TopicName'],
  'AWS::IAM::Role': ['RoleName'],
  'AWS::IAM::ManagedPolicy': ['ManagedPolicyName'],
  'AWS::Logs::LogGroup': ['LogGroupName'],
  'AWS::CloudWatch::Dashboard': ['DashboardName'],
  'AWS::CloudWatch::Alarm': ['AlarmName'],
  'AWS::Scheduler::Schedule': ['Name'],
};

function fixedNames(template: Template): string[] {
  const found: string[] = [];
  for (const [id, r] of Object.entries(template.toJSON().Resources) as [
    string,
    { Type: string; Properties?: Record<string, unknown> },
  ][]) {
    for (const prop of NAME_PROPERTIES[r.Type] ?? []) {
      if (r.Properties?.[prop] !== undefined) found.push(`${id}.${prop}`);
    }
  }
  return found;
}

const stageOfAlarms = (template: Template) =>
  new Set(
    Object.values(template.findResources('AWS::CloudWatch::Alarm')).flatMap((a) =>
      ((a.Properties.Dimensions ?? []) as { Name: string; Value: unknown }[])
        .filter((d) => d.Name === 'stage')
        .map((d) => d.Value),
    ),
  );

describe('ShardwalService', () => {
  describe('in a plain App, twice', () => {
    let app: App;
    let prod: ShardwalService;
    let staging: ShardwalService;
    let templates: Template[];
    beforeAll(() => {
      app = new App();
      const prodStack = new Stack(app, 'IngestProd');
      const stagingStack = new Stack(app, 'IngestStaging');
      prod = new ShardwalService(prodStack, 'Shardwal', {
        stage: 'prod',
        alarmEmail: 'oncall@example.com',
        functionCode: INLINE_CODE,
      });
      staging = new ShardwalService(stagingStack, 'Shardwal', {
        stage: 'staging',
        flushIntervalMs: 10_000,
        reservedConcurrency: false,
        alarmTopic: new Topic(stagingStack, 'Pager', { enforceSSL: true }),
        functionCode: INLINE_CODE,
      });
      addShardwalChecks(app);
      // Runs both packs as validation plugins: an unacknowledged error throws here.
      app.synth();
      templates = [Template.fromStack(prodStack), Template.fromStack(stagingStack)];
    }, 120_000); // app.synth() runs the CloudFormation schema validation (WASM): slow on a busy machine

    it('synthesizes with no unacknowledged AwsSolutions or Serverless finding', () => {
      expect(nagReport(app)).toEqual([]);
    });

    it('gives no resource a fixed physical name', () => {
      for (const t of templates) expect(fixedNames(t)).toEqual([]);
    });

    it('keeps the metrics of the two stages apart', () => {
      expect(stageOfAlarms(templates[0]!)).toEqual(new Set(['prod']));
      expect(stageOfAlarms(templates[1]!)).toEqual(new Set(['staging']));
      for (const [service, t] of [
        [prod, templates[0]!],
        [staging, templates[1]!],
      ] as const) {
        const fn = t.toJSON().Resources[logicalIdOf(service.functions.byName.flushTick)];
        expect(fn.Properties.Environment.Variables.SHARDWAL_STAGE).toBe(service.stage);
      }
    });

    it('sets up access logging of the data bucket without the app feature flag', () => {
      const logs = templates[0]!.toJSON().Resources[logicalIdOf(prod.storage.accessLogBucket!)];
      expect(logs.Properties.AccessControl).toBeUndefined();
      const policies = JSON.stringify(templates[0]!.findResources('AWS::S3::BucketPolicy'));
      expect(policies).toContain('logging.s3.amazonaws.com');
    });

    it('notifies the topic given as a prop, and subscribes nothing to it', () => {
      const t = templates[1]!;
      const pager = { Ref: logicalIdOf(staging.alarms.topic) };
      for (const a of Object.values(t.findResources('AWS::CloudWatch::Alarm'))) {
        expect(a.Properties.AlarmActions).toEqual([pager]);
      }
      t.resourceCountIs('AWS::SNS::Topic', 1);
      t.resourceCountIs('AWS::SNS::Subscription', 0);
    });

    it('applies the settings it is given, validated', () => {
      expect(staging.settings.ticker.ticksPerInvocation).toBe(6);
      const fn = templates[1]!.toJSON().Resources[logicalIdOf(staging.functions.byName.flushTick)];
      expect(fn.Properties.ReservedConcurrentExecutions).toBeUndefined();
    });
  });

  describe('twice in one stack', () => {
    it('synthesizes with distinct construct ids and stages, and passes the checks', () => {
      const app = new App();
      const stack = new Stack(app, 'Both');
      const a = new ShardwalService(stack, 'A', {
        stage: 'a',
        alarmEmail: 'a@example.com',
        functionCode: INLINE_CODE,
      });
      const b = new ShardwalService(stack, 'B', {
        stage: 'b',
        alarmEmail: 'b@example.com',
        functionCode: INLINE_CODE,
      });
      addShardwalChecks(app);
      expect(() => app.synth()).not.toThrow();
      expect(nagReport(app)).toEqual([]);
      expect(logicalIdOf(a.storage.table)).not.toBe(logicalIdOf(b.storage.table));
      expect(stageOfAlarms(Template.fromStack(stack))).toEqual(new Set(['a', 'b']));
    });

    it('refuses a second service of the same stage: their metrics would mix', () => {
      const stack = new Stack(new App(), 'Same');
      new ShardwalService(stack, 'A', { functionCode: INLINE_CODE });
      expect(() => new ShardwalService(stack, 'B', { functionCode: INLINE_CODE })).toThrow(
        ContextError,
      );
      expect(() => new ShardwalService(stack, 'C', { functionCode: INLINE_CODE })).toThrow(
        /stage="Same".*Same\/A already uses this stage in the deploying account, the deploying region;/,
      );
      const located = new Stack(new App(), 'Env', {
        env: { account: '123456789012', region: 'eu-west-1' },
      });
      new ShardwalService(located, 'A', { functionCode: INLINE_CODE });
      expect(() => new ShardwalService(located, 'B', { functionCode: INLINE_CODE })).toThrow(
        /already uses this stage in 123456789012, eu-west-1;/,
      );
    });

    it('names no unresolved token in its errors', () => {
      const stack = new Stack(new App(), 'Same');
      new ShardwalService(stack, 'A', { functionCode: INLINE_CODE });
      expect(() => new ShardwalService(stack, 'B', { functionCode: INLINE_CODE })).toThrow(
        /^(?!.*\$\{Token)/,
      );
    });
  });

  describe('props', () => {
    it('defaults the stage to the stack name', () => {
      const stack = new Stack(new App(), 'Orders');
      expect(new ShardwalService(stack, 'S', { functionCode: INLINE_CODE }).stage).toBe('Orders');
    });

    it('validates the typed props at synth by the context rules, naming the prop', () => {
      const stack = new Stack(new App(), 'Bad');
      const thrown = (props: Record<string, unknown>) => {
        try {
          new ShardwalService(stack, `S${Math.random()}`, { ...props, functionCode: INLINE_CODE });
        } catch (error) {
          return error as Error;
        }
        throw new Error('no error');
      };
      const interval = thrown({ flushIntervalMs: 0 });
      expect(interval).toBeInstanceOf(PropError);
      expect(interval.message).toBe('ShardwalService props.flushIntervalMs=0: expected at least 1');
      expect(interval.cause).toBeInstanceOf(ConfigError);
      expect(thrown({ apiRateLimit: 'x' }).message).toMatch(
        /^ShardwalService props\.apiRateLimit="x": expected a whole number/,
      );
      expect(thrown({ reservedConcurrency: 'off' }).message).toBe(
        'ShardwalService props.reservedConcurrency="off": expected true or false',
      );
      expect(
        thrown({ capacityMode: 'provisioned', capacity: { table: { write: { min: 0, max: 5 } } } })
          .message,
      ).toBe(
        'ShardwalService props.capacity.table.write={"min":0,"max":5}: expected units from 1 to 40000',
      );
      expect(
        thrown({ authorizer: { kind: 'jwt', issuer: 'http://idp', audience: ['a'] } }).message,
      ).toMatch(/^ShardwalService props\.authorizer\.issuer="http:\/\/idp": .*https/);
      expect(thrown({ settings: { flushIntervalMs: 1000 } }).message).toMatch(
        /^ShardwalService props\.settings=.*not a ShardwalService prop/,
      );
    });

    it('refuses a setting of a part it leaves out, and a service nothing could put to', () => {
      const stack = new Stack(new App(), 'Parts');
      const make = (props: ShardwalServiceProps) => () =>
        new ShardwalService(stack, `S${Math.random()}`, { ...props, functionCode: INLINE_CODE });
      expect(make({ httpApi: false, apiRateLimit: 10 })).toThrow(
        'ShardwalService props.apiRateLimit=10: set only with httpApi (it is false)',
      );
      expect(make({ fifoIngest: false, ingestFifoMaxConcurrency: 5 })).toThrow(
        /props\.ingestFifoMaxConcurrency=5: set only with fifoIngest/,
      );
      expect(make({ httpApi: false, sqsIngest: false, fifoIngest: false })).toThrow(
        /props\.httpApi=false: .*nothing could put rows/,
      );
    });

    it('keeps the logical ids it is given for stateful resources, and the checks follow them', () => {
      const app = new App();
      const stack = new Stack(app, 'Adopted');
      const service = new ShardwalService(stack, 'S', {
        alarmEmail: 'oncall@example.com',
        logicalIds: { table: 'LegacyTable', bucket: 'LegacyBucket', ingestQueue: 'LegacyIngest' },
        functionCode: INLINE_CODE,
      });
      const resources = Template.fromStack(stack).toJSON().Resources;
      expect(resources.LegacyTable.Type).toBe('AWS::DynamoDB::Table');
      expect(resources.LegacyBucket.Type).toBe('AWS::S3::Bucket');
      expect(resources.LegacyIngest.Type).toBe('AWS::SQS::Queue');
      expect(logicalIdOf(service.queues.flush)).not.toMatch(/^Legacy/);
      // The wildcard acknowledgements name the bucket by its pinned id.
      expect(nagReport(app)).toEqual([]);
    });

    it('warns that alarms reach nobody without a destination, until the warning is acknowledged', () => {
      const stack = new Stack(new App(), 'Quiet');
      const service = new ShardwalService(stack, 'S', { functionCode: INLINE_CODE });
      const warnings = () =>
        Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('reach nobody'));
      expect(warnings()).toHaveLength(1);
      CdkAnnotations.of(service).acknowledgeWarning(NO_ALARM_DESTINATION_WARNING);
      expect(warnings()).toEqual([]);
    });
  });
});

describe('addShardwalChecks', () => {
  it('fails the synth on an unacknowledged finding of either pack', () => {
    const app = new App();
    const stack = new Stack(app, 'Plain');
    // No DLQ, no failure destination: Serverless-LambdaDLQ; no log retention config etc.
    new LambdaFunction(stack, 'Fn', {
      runtime: Runtime.NODEJS_24_X,
      handler: 'index.handler',
      code: INLINE_CODE,
    });
    addShardwalChecks(app);
    expect(() => app.synth()).toThrow(/Serverless-LambdaDLQ/);
  });
});
