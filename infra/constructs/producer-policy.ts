/**
 * A managed policy for producers to attach to their own roles: send to the
 * ingest queue and, with the IAM authorizer, call the three API routes.
 * Nothing else: no table, no bucket, no flush queue.
 */
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { ManagedPolicy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { ApiAuthorizer } from '../settings.js';
import { ROUTES } from './api.js';
import { acknowledgeWildcardResources, refToken } from './nag.js';

/** Props of `ProducerPolicy`. */
export interface ProducerPolicyProps {
  ingestQueue: Queue;
  httpApi: HttpApi;
  authorizer: ApiAuthorizer;
}

/** The route's path in an execute-api ARN: `{param}` segments become `*`. */
const arnPath = (path: string) => path.replace(/\{[^}]+\}/g, '*');

/** The producers' policy. */
export class ProducerPolicy extends Construct {
  readonly policy: ManagedPolicy;

  constructor(scope: Construct, id: string, props: ProducerPolicyProps) {
    super(scope, id);
    const routes = Object.values(ROUTES);
    const statements = [
      new PolicyStatement({
        actions: ['sqs:SendMessage'],
        resources: [props.ingestQueue.queueArn],
      }),
    ];
    // With the JWT authorizer, API access is the identity provider's to grant.
    if (props.authorizer.kind === 'iam') {
      statements.push(
        new PolicyStatement({
          actions: ['execute-api:Invoke'],
          resources: routes.map((r) =>
            props.httpApi.arnForExecuteApi(r.method, arnPath(r.path), '$default'),
          ),
        }),
      );
    }
    this.policy = new ManagedPolicy(this, 'Resource', {
      description: 'shardwal producers: put rows (ingest queue, HTTP API) and read shard status',
      statements,
    });
    if (props.authorizer.kind === 'iam') {
      const api = refToken(props.httpApi);
      acknowledgeWildcardResources(
        this.policy,
        routes.map(
          (r) =>
            `arn:<AWS::Partition>:execute-api:<AWS::Region>:<AWS::AccountId>:${api}/$default/${r.method}${arnPath(r.path)}`,
        ),
        'Route ARNs carry * for the {shard} and {seq} path parameters: producers choose shard names at run time; method and route are fixed.',
      );
    }
  }
}
