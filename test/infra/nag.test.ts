import { Annotations, Match } from 'aws-cdk-lib/assertions';
import type { NagPack } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { shardwalNagPacks } from '../../infra/checks.js';
import { NO_ALARM_DESTINATION_WARNING } from '../../infra/constructs/alarms.js';
import { acknowledgements, nagReport, type Synthesized, synth } from './support.js';

let variants: Record<string, Synthesized>;
beforeAll(() => {
  // Synth itself runs both packs as validation plugins and throws on an
  // unacknowledged error; validateScope below also catches warnings.
  // (cdk-synth.test.ts runs the CDK's CloudFormation schema validation too.)
  variants = {
    default: synth({}),
    'jwt, email, 5-minute interval, producer accounts, no reservations': synth({
      authorizer: 'jwt',
      jwtIssuer: 'https://idp.example.com/',
      jwtAudience: 'shardwal',
      alarmEmail: 'oncall@example.com',
      flushIntervalMs: 300_000,
      producerAccounts: '111122223333',
      reservedConcurrency: 'off',
    }),
    'alarm topic ARN': synth({ alarmTopicArn: 'arn:aws:sns:eu-west-1:111122223333:pager' }),
  };
});

/**
 * Rules acknowledged whole (not one wildcard resource at a time), and where:
 * each is a finding that does not apply to that construct (the reasons are
 * in the code).
 */
const WHOLE_RULE_ACKS = {
  'Serverless-LambdaDLQ': /\/Functions\/\w+$/,
  'Serverless-LambdaTracing': /\/Functions\/\w+$/,
  'Serverless-LambdaEventSourceMappingDestination': /\/Functions\/(putSqs|flushWorker)$/,
  'Serverless-SQSRedrivePolicy': /\/Queues\/(IngestDlq|IngestFifoDlq|FlushDlq|Failures)$/,
  'AwsSolutions-SQS3': /\/Queues\/Failures$/,
} as const;

describe('addShardwalChecks', () => {
  for (const name of [
    'default',
    'jwt, email, 5-minute interval, producer accounts, no reservations',
    'alarm topic ARN',
  ]) {
    it(`leaves no unacknowledged error or warning of AwsSolutions or Serverless (${name})`, () => {
      expect(nagReport(variants[name]!.stack.node.root)).toEqual([]);
    });
  }

  it('registers both packs on the app', () => {
    const names = shardwalNagPacks(variants.default!.stack.node.root as never).map(
      (p: NagPack) => p.readPackName,
    );
    expect(names).toEqual(['AwsSolutions', 'Serverless']);
  });

  it('warns at synth when the alarms reach nobody, and only then', () => {
    const warnings = (v: Synthesized) =>
      Annotations.fromStack(v.stack).findWarning('*', Match.stringLikeRegexp('reach nobody'));
    expect(warnings(variants.default!)).toHaveLength(1);
    expect(
      warnings(variants['jwt, email, 5-minute interval, producer accounts, no reservations']!),
    ).toEqual([]);
    expect(warnings(variants['alarm topic ARN']!)).toEqual([]);
    expect(JSON.stringify(warnings(variants.default!))).toContain(NO_ALARM_DESTINATION_WARNING);
  });

  it('leaves no other CDK warning and no error annotation on the stack', () => {
    for (const v of Object.values(variants)) {
      const annotations = Annotations.fromStack(v.stack);
      const others = annotations
        .findWarning('*', Match.anyValue())
        .filter((w) => !JSON.stringify(w).includes(NO_ALARM_DESTINATION_WARNING));
      expect(others).toEqual([]);
      expect(annotations.findError('*', Match.anyValue())).toEqual([]);
    }
  });

  it('acknowledges IAM5 one wildcard resource at a time, and whole rules only where they do not apply', () => {
    for (const v of Object.values(variants)) {
      const acks = acknowledgements(v.stack.node.root);
      expect(acks.length).toBeGreaterThan(0);
      for (const ack of acks) {
        if (ack.id.startsWith('AwsSolutions-IAM5')) {
          expect(ack.id).toMatch(/^AwsSolutions-IAM5\[Resource::.+\*.*\]$/);
          continue;
        }
        const where = WHOLE_RULE_ACKS[ack.id as keyof typeof WHOLE_RULE_ACKS];
        expect(where, `${ack.id} is not a rule shardwal acknowledges whole`).toBeDefined();
        expect(ack.path, ack.id).toMatch(where);
      }
    }
  });

  it('has no stale acknowledgement: each silences a finding on its own construct', () => {
    for (const v of Object.values(variants)) {
      const app = v.stack.node.root;
      const findings = shardwalNagPacks(app as never).flatMap((pack) => {
        // Test-only: report acknowledged findings too (cdk-nag 3.0.2 filters them in a private method).
        (pack as unknown as { isAcknowledged: () => boolean }).isAcknowledged = () => false;
        return pack.validateScope(app).violations;
      });
      for (const ack of acknowledgements(app)) {
        const silenced = findings.some(
          (f) =>
            f.ruleName === ack.id &&
            f.violatingResources.some((r) => r.constructPath?.startsWith(`${ack.path}/`)),
        );
        expect(silenced, `${ack.id} at ${ack.path}`).toBe(true);
      }
    }
  });

  it('gives every acknowledgement a specific reason', () => {
    for (const ack of acknowledgements(variants.default!.stack.node.root)) {
      expect(ack.reason.length, `${ack.id} at ${ack.path}`).toBeGreaterThanOrEqual(60);
    }
  });
});
