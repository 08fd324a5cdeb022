import { Validations } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Synthesized, synth } from './support.js';

let variants: Record<string, Synthesized>;
beforeAll(() => {
  // Synth itself runs cdk-nag as a validation plugin and throws on an
  // unacknowledged error; validateScope below also catches warnings.
  // (cdk-synth.test.ts runs the CDK's CloudFormation schema validation too.)
  variants = {
    default: synth({}),
    'jwt, email, 5-minute interval': synth({
      authorizer: 'jwt',
      jwtIssuer: 'https://idp.example.com/',
      jwtAudience: 'shardwal',
      alarmEmail: 'oncall@example.com',
      flushIntervalMs: 300_000,
    }),
  };
});

function acknowledgements(root: IConstruct): { path: string; id: string; reason: string }[] {
  const found: { path: string; id: string; reason: string }[] = [];
  for (const c of root.node.findAll()) {
    for (const entry of c.node.metadata) {
      if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
      for (const [id, reason] of Object.entries(entry.data as Record<string, string>)) {
        found.push({ path: c.node.path, id: id.replace(/^annotation::/i, ''), reason });
      }
    }
  }
  return found;
}

describe('AwsSolutionsChecks', () => {
  for (const name of ['default', 'jwt, email, 5-minute interval']) {
    it(`finds no unacknowledged error or warning (${name})`, () => {
      const app = variants[name]!.stack.node.root;
      const { violations } = new AwsSolutionsChecks().validateScope(app);
      const report = violations.map(
        (v) =>
          `${v.severity} ${v.ruleName} at ${v.violatingResources.map((r) => r.constructPath).join(', ')}`,
      );
      expect(report).toEqual([]);
    });
  }

  it('leaves no CDK warning or error annotation on the stack', () => {
    for (const v of Object.values(variants)) {
      const annotations = Annotations.fromStack(v.stack);
      expect(annotations.findWarning('*', Match.anyValue())).toEqual([]);
      expect(annotations.findError('*', Match.anyValue())).toEqual([]);
    }
  });

  it('acknowledges only IAM5 findings, one wildcard resource at a time', () => {
    const acks = acknowledgements(variants.default!.stack.node.root);
    expect(acks.length).toBeGreaterThan(0);
    // Never a whole rule: each acknowledgement names one wildcard resource.
    for (const ack of acks) expect(ack.id).toMatch(/^AwsSolutions-IAM5\[Resource::.+\*.*\]$/);
  });

  it('has no stale acknowledgement: each silences a finding on its own construct', () => {
    const app = variants.default!.stack.node.root;
    const unfiltered = new AwsSolutionsChecks();
    // Test-only: report acknowledged findings too (cdk-nag 3.0.2 filters them in a private method).
    (unfiltered as unknown as { isAcknowledged: () => boolean }).isAcknowledged = () => false;
    const findings = unfiltered.validateScope(app).violations;
    for (const ack of acknowledgements(app)) {
      const silenced = findings.some(
        (f) =>
          f.ruleName === ack.id &&
          f.violatingResources.some((r) => r.constructPath?.startsWith(`${ack.path}/`)),
      );
      expect(silenced, `${ack.id} at ${ack.path}`).toBe(true);
    }
  });

  it('gives every acknowledgement a specific reason', () => {
    for (const ack of acknowledgements(variants.default!.stack.node.root)) {
      expect(ack.reason.length, `${ack.id} at ${ack.path}`).toBeGreaterThanOrEqual(60);
    }
  });
});
