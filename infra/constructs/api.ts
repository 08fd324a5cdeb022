/**
 * The HTTP API: every route behind an authorizer (IAM SigV4 by default, or a
 * JWT issuer), stage-wide throttling, and JSON access logs.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  HttpApi,
  HttpMethod,
  HttpStage,
  type IHttpRouteAuthorizer,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer, HttpJwtAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { ApiAuthorizer } from '../settings.js';
import { LOG_RETENTION } from './functions.js';

/** The routes, as API Gateway route keys. */
export const ROUTES = {
  put: { method: HttpMethod.POST, path: '/v1/shards/{shard}/rows' },
  shardStatus: { method: HttpMethod.GET, path: '/v1/shards/{shard}' },
  seqStatus: { method: HttpMethod.GET, path: '/v1/shards/{shard}/seqs/{seq}' },
} as const;

/** Props of `Api`. */
export interface ApiProps {
  putHandler: IFunction;
  statusHandler: IFunction;
  authorizer: ApiAuthorizer;
  rateLimit: number;
  burstLimit: number;
}

/**
 * Access-log fields, one JSON line per request: the request id, the time
 * (epoch ms), the source IP, the caller (the IAM principal's ARN, or the JWT
 * subject), method and path (so the shard), status, latency (ms), response
 * length and the integration's error. The line is written for every put, so
 * its bytes are part of the cost per GB: short keys, one caller field for the
 * authorizer in use, no field operators do not read (docs/deploy.md lists
 * them; `test/infra/log-bytes.test.ts` measures the line).
 */
export function accessLogFields(authorizer: ApiAuthorizer): Record<string, string> {
  return {
    id: '$context.requestId',
    time: '$context.requestTimeEpoch',
    ip: '$context.identity.sourceIp',
    caller:
      authorizer.kind === 'iam' ? '$context.identity.userArn' : '$context.authorizer.claims.sub',
    request: '$context.httpMethod $context.path',
    status: '$context.status',
    ms: '$context.responseLatency',
    bytes: '$context.responseLength',
    error: '$context.integrationErrorMessage',
  };
}

function routeAuthorizer(config: ApiAuthorizer): IHttpRouteAuthorizer {
  if (config.kind === 'iam') return new HttpIamAuthorizer();
  return new HttpJwtAuthorizer('ShardwalJwt', config.issuer, { jwtAudience: [...config.audience] });
}

/** HTTP API with the put and status routes. */
export class Api extends Construct {
  readonly httpApi: HttpApi;
  readonly stage: HttpStage;
  readonly authorizer: IHttpRouteAuthorizer;

  constructor(scope: Construct, id: string, props: ApiProps) {
    super(scope, id);
    this.authorizer = routeAuthorizer(props.authorizer);
    this.httpApi = new HttpApi(this, 'HttpApi', {
      description: 'shardwal: put rows into shards, read shard and seq status',
      // No anonymous route: the authorizer is the default of every route.
      defaultAuthorizer: this.authorizer,
      // Created below, with throttling and access logs the default stage lacks.
      createDefaultStage: false,
    });
    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: LOG_RETENTION,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.stage = new HttpStage(this, 'Stage', {
      httpApi: this.httpApi,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: props.rateLimit, burstLimit: props.burstLimit },
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(JSON.stringify(accessLogFields(props.authorizer))),
      },
    });

    const put = new HttpLambdaIntegration('Put', props.putHandler);
    const status = new HttpLambdaIntegration('Status', props.statusHandler);
    this.httpApi.addRoutes({
      path: ROUTES.put.path,
      methods: [ROUTES.put.method],
      integration: put,
    });
    for (const route of [ROUTES.shardStatus, ROUTES.seqStatus]) {
      this.httpApi.addRoutes({ path: route.path, methods: [route.method], integration: status });
    }
  }

  /** Base URL of the API (the `$default` stage has no path segment). */
  get url(): string {
    return this.stage.url;
  }
}
