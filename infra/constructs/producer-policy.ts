/**
 * A managed policy for producers to attach to their own roles: send to the
 * ingest queues (standard and FIFO, `PRODUCER_QUEUE_ACTIONS`) and, with the
 * IAM authorizer, call the three API routes.
 * Nothing else: no table, no bucket, no flush queue.
 *
 * Producers in other accounts assume the producer role, which carries that
 * policy and trusts the accounts listed in `producerAccounts`. A role rather
 * than resource policies, because an HTTP API takes no resource policy: an
 * IAM-authorized route only admits principals of its own account.
 */
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  AccountPrincipal,
  CompositePrincipal,
  Grant,
  type IGrantable,
  ManagedPolicy,
  PolicyStatement,
  Role,
} from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct, type IConstruct } from 'constructs';
import { SHARD_NAME_PATTERN } from '../../lib/paths.js';
import { ContextError } from '../context-values.js';
import type { ApiAuthorizer } from '../settings.js';
import { ROUTES } from './api.js';
import { KEY_SEND_ACTIONS } from './key-use.js';
import { acknowledgeWildcardResources } from './nag.js';

/**
 * What the project's SQS producers send to an ingest queue: the messages
 * (`SendMessageBatch` is authorized as `SendMessage`), and `GetQueueAttributes`,
 * which `createSqsProducer` (and `shardwal put --sqs`) calls to learn the
 * queue's maximum message size unless `maxMessageBytes` is given. Read-only:
 * it tells the producer the queue's settings, nothing about its messages.
 */
export const PRODUCER_QUEUE_ACTIONS = ['sqs:SendMessage', 'sqs:GetQueueAttributes'] as const;

/** Props of `ProducerPolicy`. */
export interface ProducerPolicyProps {
  /** The ingest queues producers send to (standard and FIFO, those that exist). */
  ingestQueues: Queue[];
  /** The HTTP API; undefined when the service has none. */
  httpApi: HttpApi | undefined;
  authorizer: ApiAuthorizer;
  /** Accounts whose principals may assume the producer role; none, no role. */
  trustedAccounts?: readonly string[];
  /** The app's key the ingest queues are encrypted with: sending needs its data keys. */
  key?: IKey | undefined;
}

/** The route's path for one shard name or prefix (`orders`, `orders-*`); `{seq}` stays `*`. */
const shardPath = (path: string, shard: string) =>
  path
    .replace('{shard}', shard.replace(/\*$/, '#'))
    .replace(/\{[^}]+\}/g, '*')
    .replace('#', '*');

/** Options of `grantProduce`. */
export interface GrantProduceOptions {
  /**
   * Shard names, or prefixes ending in `*` (`orders-*`), the grantee may put
   * to and read the status of over HTTP; unset, every shard. SQS cannot be
   * narrowed: IAM does not see the shard in a message's body, so the grant
   * covers the ingest queues whole.
   */
  readonly shards?: readonly string[];
}

const SHARD_PREFIX = /^[a-z0-9][a-z0-9_-]{0,62}\*$/;

/** Validates the shard names and prefixes of `grantProduce`; the error names the option. */
function shardPatterns(shards: readonly string[] | undefined): string[] {
  if (shards === undefined) return ['*'];
  if (shards.length === 0) {
    throw new ContextError(
      'grantProduce.shards',
      shards,
      'expected at least one shard name or prefix',
    );
  }
  for (const shard of shards) {
    if (!SHARD_NAME_PATTERN.test(shard) && !SHARD_PREFIX.test(shard)) {
      throw new ContextError(
        'grantProduce.shards',
        shard,
        "expected a shard name (a-z, 0-9, '-', '_') or a prefix of one ending in *",
      );
    }
  }
  return [...shards];
}

/** The producers' policy. */
export class ProducerPolicy extends Construct {
  /** The managed policy; undefined when producers need no IAM grant (no SQS ingest, JWT API). */
  readonly policy: ManagedPolicy | undefined;
  /** The role producers of other accounts assume, when accounts are trusted. */
  readonly role: Role | undefined;
  readonly #props: ProducerPolicyProps;

  constructor(scope: Construct, id: string, props: ProducerPolicyProps) {
    super(scope, id);
    this.#props = props;
    const routeArns = this.#routeArns(['*']);
    const statements = this.#grants(routeArns).map(
      ({ actions, resources }) => new PolicyStatement({ actions, resources }),
    );
    // No SQS ingest and a JWT-authorized API: producers need no IAM grant at all.
    if (statements.length === 0) {
      this.policy = undefined;
      this.role = undefined;
      return;
    }
    this.policy = new ManagedPolicy(this, 'Resource', {
      description: 'shardwal producers: put rows (ingest queue, HTTP API) and read shard status',
      statements,
    });
    acknowledgeWildcardResources(
      this.policy,
      routeArns,
      'Route ARNs carry * for the {shard} and {seq} path parameters: producers choose shard names at run time; method and route are fixed.',
    );
    const accounts = props.trustedAccounts ?? [];
    // The trusted account's administrator decides which of its principals may
    // assume the role (sts:AssumeRole in their own policies).
    this.role =
      accounts.length === 0
        ? undefined
        : new Role(this, 'Role', {
            description:
              'shardwal producers of trusted accounts: the producer policy, nothing else',
            assumedBy: new CompositePrincipal(...accounts.map((a) => new AccountPrincipal(a))),
            managedPolicies: [this.policy],
          });
  }

  /** The route ARNs for shard names or prefixes; none without an IAM-authorized API. */
  #routeArns(shards: readonly string[]): string[] {
    const { httpApi, authorizer } = this.#props;
    // With the JWT authorizer, API access is the identity provider's to grant.
    if (!httpApi || authorizer.kind !== 'iam') return [];
    return shards.flatMap((shard) =>
      Object.values(ROUTES).map((r) =>
        httpApi.arnForExecuteApi(r.method, shardPath(r.path, shard), '$default'),
      ),
    );
  }

  /** What a producer is granted: the ingest queues (and their key) that exist, and the routes. */
  #grants(routeArns: string[]): { actions: string[]; resources: string[] }[] {
    const { ingestQueues, key } = this.#props;
    const grants: { actions: string[]; resources: string[] }[] = [];
    if (ingestQueues.length > 0) {
      grants.push({
        actions: [...PRODUCER_QUEUE_ACTIONS],
        resources: ingestQueues.map((q) => q.queueArn),
      });
      if (key) grants.push({ actions: [...KEY_SEND_ACTIONS], resources: [key.keyArn] });
    }
    if (routeArns.length > 0)
      grants.push({ actions: ['execute-api:Invoke'], resources: routeArns });
    return grants;
  }

  /**
   * Grants `grantee` what a producer needs: the ingest queues' actions
   * (`PRODUCER_QUEUE_ACTIONS`) and, with the IAM authorizer, the three routes,
   * for `options.shards` only when given. The route ARNs carry `*` (a shard
   * prefix, the seq), so cdk-nag IAM5 findings on the grantee's policy are
   * acknowledged on the grantee, one route at a time.
   */
  grantProduce(grantee: IGrantable, options: GrantProduceOptions = {}): Grant {
    const routeArns = this.#routeArns(shardPatterns(options.shards));
    const grants = this.#grants(routeArns).map(({ actions, resources }) =>
      Grant.addToPrincipal({ grantee, actions, resourceArns: resources }),
    );
    const [first, ...rest] = grants;
    if (!first) {
      throw new ContextError(
        'grantProduce',
        undefined,
        'nothing to grant: the service has no SQS ingest, and its HTTP API authorizes with JWT (the identity provider grants access)',
      );
    }
    const construct = grantee as Partial<IConstruct>;
    if (construct.node) {
      acknowledgeWildcardResources(
        construct as IConstruct,
        routeArns.filter((arn) => arn.includes('*')),
        'shardwal grantProduce: route ARNs carry * for the seq path parameter, and for the shard when the grant covers every shard or a prefix of shard names; method and route are fixed.',
      );
    }
    return rest.reduce((all, grant) => all.combine(grant), first);
  }
}
