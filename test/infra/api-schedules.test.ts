import { beforeAll, describe, expect, it } from 'vitest';
import type { HandlerName } from '../../infra/constructs/functions.js';
import { logicalIdOf } from '../../infra/constructs/nag.js';
import { TICKER_SCHEDULED_TIME_FIELD } from '../../infra/constructs/schedules.js';
import { DEFAULT_HANDLERS, functionId, type Synthesized, synth } from './support.js';

let iam: Synthesized;
let jwt: Synthesized;
let fiveMinutes: Synthesized;
beforeAll(() => {
  iam = synth({ flushIntervalMs: '10000' });
  jwt = synth({
    authorizer: 'jwt',
    jwtIssuer: 'https://idp.example.com/',
    jwtAudience: 'shardwal-producers',
    flushIntervalMs: 300_000,
    exportEveryMinutes: '30',
    verifyEveryMinutes: '120',
  });
  fiveMinutes = jwt;
});

const routes = (s: Synthesized) =>
  Object.fromEntries(
    Object.values(s.template.findResources('AWS::ApiGatewayV2::Route')).map((r) => [
      r.Properties.RouteKey as string,
      r.Properties,
    ]),
  );

const integrationTarget = (s: Synthesized, routeKey: string) => {
  const target = routes(s)[routeKey].Target['Fn::Join'][1][1].Ref as string;
  return s.template.toJSON().Resources[target].Properties.IntegrationUri;
};

const schedule = (s: Synthesized, which: 'ticker' | 'export' | 'verify') =>
  s.template.toJSON().Resources[logicalIdOf(s.service.schedules[which])].Properties;

const failuresArn = (s: Synthesized) => ({
  'Fn::GetAtt': [logicalIdOf(s.service.queues.failures), 'Arn'],
});

const invokeConfig = (s: Synthesized, fn: HandlerName) =>
  Object.values(s.template.findResources('AWS::Lambda::EventInvokeConfig')).find(
    (c) => c.Properties.FunctionName.Ref === functionId(s, fn),
  )?.Properties;

describe('Api', () => {
  it('routes puts to put-http and both status routes to status-http', () => {
    expect(Object.keys(routes(iam)).sort()).toEqual([
      'GET /v1/shards/{shard}',
      'GET /v1/shards/{shard}/seqs/{seq}',
      'POST /v1/shards/{shard}/rows',
    ]);
    expect(integrationTarget(iam, 'POST /v1/shards/{shard}/rows')).toEqual({
      'Fn::GetAtt': [functionId(iam, 'putHttp'), 'Arn'],
    });
    for (const key of ['GET /v1/shards/{shard}', 'GET /v1/shards/{shard}/seqs/{seq}']) {
      expect(integrationTarget(iam, key)).toEqual({
        'Fn::GetAtt': [functionId(iam, 'statusHttp'), 'Arn'],
      });
    }
  });

  it('puts every route behind AWS_IAM by default', () => {
    for (const route of Object.values(routes(iam))) expect(route.AuthorizationType).toBe('AWS_IAM');
    iam.template.resourceCountIs('AWS::ApiGatewayV2::Authorizer', 0);
  });

  it('puts every route behind the JWT authorizer when authorizer=jwt', () => {
    const authorizers = Object.entries(jwt.template.findResources('AWS::ApiGatewayV2::Authorizer'));
    expect(authorizers).toHaveLength(1);
    const [authorizerId, authorizer] = authorizers[0]!;
    expect(authorizer.Properties).toMatchObject({
      AuthorizerType: 'JWT',
      JwtConfiguration: { Issuer: 'https://idp.example.com/', Audience: ['shardwal-producers'] },
    });
    for (const route of Object.values(routes(jwt))) {
      expect(route).toMatchObject({
        AuthorizationType: 'JWT',
        AuthorizerId: { Ref: authorizerId },
      });
    }
  });

  it('throttles the stage and writes JSON access logs', () => {
    iam.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 1000, ThrottlingBurstLimit: 2000 },
    });
    const stage = Object.values(iam.template.findResources('AWS::ApiGatewayV2::Stage'))[0]!;
    expect(JSON.parse(stage.Properties.AccessLogSettings.Format)).toMatchObject({
      id: '$context.requestId',
      status: '$context.status',
      caller: '$context.identity.userArn',
    });
    // Behind a JWT authorizer the caller is the token's subject.
    const jwtStage = Object.values(jwt.template.findResources('AWS::ApiGatewayV2::Stage'))[0]!;
    expect(JSON.parse(jwtStage.Properties.AccessLogSettings.Format).caller).toBe(
      '$context.authorizer.claims.sub',
    );
  });
});

describe('Schedules', () => {
  it('invokes flush-tick every minute for a 10 s interval, with no retries and no flexible window', () => {
    expect(schedule(iam, 'ticker')).toMatchObject({
      ScheduleExpression: 'rate(1 minute)',
      FlexibleTimeWindow: { Mode: 'OFF' },
      State: 'ENABLED',
      Target: {
        Arn: { 'Fn::GetAtt': [functionId(iam, 'flushTick'), 'Arn'] },
        RetryPolicy: { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 60 },
        DeadLetterConfig: { Arn: failuresArn(iam) },
      },
    });
    const env =
      iam.template.toJSON().Resources[functionId(iam, 'flushTick')].Properties.Environment
        .Variables;
    expect(env.SHARDWAL_FLUSH_INTERVAL_MS).toBe('10000');
  });

  it('passes the scheduled time to the ticker, in the field the ticker reads', () => {
    expect(TICKER_SCHEDULED_TIME_FIELD).toBe('scheduledTime');
    expect(JSON.parse(schedule(iam, 'ticker').Target.Input)).toEqual({
      [TICKER_SCHEDULED_TIME_FIELD]: '<aws.scheduler.scheduled-time>',
    });
  });

  it('turns off Lambda async retries of the tick, so a failed tick is never replayed late', () => {
    expect(invokeConfig(iam, 'flushTick')).toEqual({
      FunctionName: { Ref: functionId(iam, 'flushTick') },
      Qualifier: '$LATEST',
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 60,
      DestinationConfig: { OnFailure: { Destination: failuresArn(iam) } },
    });
  });

  it('never retries export or verify silently: no async retries, failures to the failures queue', () => {
    for (const [x, fn, periodS] of [
      [iam, 'export', 900],
      [iam, 'recover', 3600],
      [jwt, 'export', 1800],
      [jwt, 'recover', 7200],
    ] as const) {
      expect(invokeConfig(x, fn)).toMatchObject({
        MaximumRetryAttempts: 0,
        // No event outlives its period: the next run is the retry.
        MaximumEventAgeInSeconds: periodS,
        DestinationConfig: { OnFailure: { Destination: failuresArn(x) } },
      });
    }
  });

  it('lets Scheduler retry a failed export or verify invoke twice within the period, then dead-letter it', () => {
    for (const [which, periodS] of [
      ['export', 900],
      ['verify', 3600],
    ] as const) {
      expect(schedule(iam, which).Target).toMatchObject({
        RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: periodS },
        DeadLetterConfig: { Arn: failuresArn(iam) },
      });
    }
  });

  it('maps a 5-minute interval to rate(5 minutes)', () => {
    expect(schedule(fiveMinutes, 'ticker').ScheduleExpression).toBe('rate(5 minutes)');
    const env =
      fiveMinutes.template.toJSON().Resources[functionId(fiveMinutes, 'flushTick')].Properties
        .Environment.Variables;
    expect(env.SHARDWAL_FLUSH_INTERVAL_MS).toBe('300000');
  });

  it('runs export and verify at the default and configured rates', () => {
    expect(schedule(iam, 'export')).toMatchObject({
      ScheduleExpression: 'rate(15 minutes)',
      Target: { Arn: { 'Fn::GetAtt': [functionId(iam, 'export'), 'Arn'] } },
    });
    expect(schedule(iam, 'verify')).toMatchObject({
      ScheduleExpression: 'rate(1 hour)',
      Target: {
        Arn: { 'Fn::GetAtt': [functionId(iam, 'recover'), 'Arn'] },
        Input: '{"mode":"verify"}',
      },
    });
    expect(schedule(jwt, 'export').ScheduleExpression).toBe('rate(30 minutes)');
    expect(schedule(jwt, 'verify').ScheduleExpression).toBe('rate(2 hours)');
  });

  it('gives each schedule a role that can invoke only its own function', () => {
    const resources = iam.template.toJSON().Resources;
    for (const [which, fn] of [
      ['ticker', 'flushTick'],
      ['export', 'export'],
      ['verify', 'recover'],
    ] as const) {
      const roleId = schedule(iam, which).Target.RoleArn['Fn::GetAtt'][0] as string;
      expect(JSON.stringify(resources[roleId].Properties.AssumeRolePolicyDocument)).toContain(
        'scheduler.amazonaws.com',
      );
      const policies = Object.values(iam.template.findResources('AWS::IAM::Policy')).filter((p) =>
        JSON.stringify(p.Properties.Roles).includes(`"${roleId}"`),
      );
      const statements = policies.flatMap((p) => p.Properties.PolicyDocument.Statement);
      expect(statements).toHaveLength(2);
      const invoke = statements.find((st) => st.Action === 'lambda:InvokeFunction');
      const referenced = DEFAULT_HANDLERS.filter((name) =>
        JSON.stringify(invoke.Resource).includes(`"${functionId(iam, name)}"`),
      );
      expect(referenced).toEqual([fn]);
      // The other statement lets it dead-letter to the failures queue, nothing more.
      const deadLetter = statements.find((st) => st !== invoke);
      expect(deadLetter).toMatchObject({ Action: 'sqs:SendMessage', Resource: failuresArn(iam) });
    }
  });
});
