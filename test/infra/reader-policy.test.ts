/**
 * The readers' policy: exactly `s3:GetObject` on the four stored formats and
 * `s3:ListBucket` on the data bucket, as a managed policy with its ARN as a
 * stack output, attached to nothing by the service, and the same statements
 * through `grantRead`. cdk-nag runs on every synth (`support.ts`): its
 * wildcard findings are acknowledged for exactly these object kinds.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AccountRootPrincipal, Role } from 'aws-cdk-lib/aws-iam';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { logicalIdOf } from '../../infra/constructs/nag.js';
import { READER_KEY_PATTERNS, ReaderPolicy } from '../../infra/constructs/reader-policy.js';
import { acknowledgements, type Statement, type Synthesized, synth } from './support.js';

let s: Synthesized;
beforeAll(() => {
  s = synth();
});

/** Each statement as `<action> <resource>`, the bucket's ARN written `bucket`, sorted. */
function grants(statements: Statement[], bucketId: string): string[] {
  const bucketArn = JSON.stringify({ 'Fn::GetAtt': [bucketId, 'Arn'] });
  const render = (resource: unknown): string => {
    const text = JSON.stringify(resource);
    if (text === bucketArn) return 'bucket';
    const join = resource as { 'Fn::Join'?: [string, unknown[]] };
    const parts = join['Fn::Join']?.[1];
    if (parts?.length === 2 && JSON.stringify(parts[0]) === bucketArn) return `bucket${parts[1]}`;
    return text;
  };
  return statements
    .flatMap((st) => {
      const actions = Array.isArray(st.Action) ? st.Action : [st.Action];
      const resources = Array.isArray(st.Resource) ? st.Resource : [st.Resource];
      expect(st.Effect).toBe('Allow');
      expect(st.Condition).toBeUndefined();
      return actions.flatMap((a) => resources.map((r) => `${a} ${render(r)}`));
    })
    .sort();
}

const EXPECTED = [
  's3:GetObject bucket/shards/*/aof/*',
  's3:GetObject bucket/shards/*/manifest/*',
  's3:GetObject bucket/shards/*/seg/*',
  's3:GetObject bucket/shards/*/snap/*',
  's3:GetObject bucket/shards/*/wal/*',
  's3:ListBucket bucket',
];

describe('ReaderPolicy', () => {
  it('allows getting the stored formats and listing the bucket, nothing else', () => {
    const policy = s.template.toJSON().Resources[logicalIdOf(s.service.readers.policy)];
    expect(policy.Type).toBe('AWS::IAM::ManagedPolicy');
    const statements = policy.Properties.PolicyDocument.Statement as Statement[];
    expect(grants(statements, logicalIdOf(s.service.storage.bucket))).toEqual(EXPECTED);
  });

  it('is attached to nothing by the service, and its ARN is a stack output', () => {
    const id = logicalIdOf(s.service.readers.policy);
    const attached = Object.entries(s.template.toJSON().Resources).filter(([, resource]) =>
      JSON.stringify((resource as { Properties?: unknown }).Properties ?? {}).includes(
        `{"Ref":"${id}"}`,
      ),
    );
    expect(attached).toEqual([]);
    expect(s.template.toJSON().Outputs.ReaderPolicyArn.Value).toEqual({ Ref: id });
  });

  it('acknowledges the wildcard findings of exactly its object kinds', () => {
    const path = s.service.readers.policy.node.path;
    const ids = acknowledgements(s.stack)
      .filter((a) => a.path === path)
      .map((a) => a.id)
      .sort();
    const bucket = logicalIdOf(s.service.storage.bucket);
    expect(ids).toEqual(
      READER_KEY_PATTERNS.map((p) => `AwsSolutions-IAM5[Resource::<${bucket}.Arn>/${p}]`).sort(),
    );
  });

  describe('grantRead', () => {
    it('gives a principal the same statements as the managed policy', () => {
      const stack = new Stack(new App(), 'ReaderGrant');
      const bucket = new Bucket(stack, 'Data');
      const readers = new ReaderPolicy(stack, 'Readers', { bucket });
      const role = new Role(stack, 'Tailer', { assumedBy: new AccountRootPrincipal() });
      readers.grantRead(role);
      const template = Template.fromStack(stack).toJSON();
      const policies = Object.values(template.Resources).filter(
        (r) =>
          (r as { Type: string }).Type === 'AWS::IAM::Policy' &&
          JSON.stringify((r as { Properties: { Roles: unknown } }).Properties.Roles).includes(
            logicalIdOf(role),
          ),
      ) as Array<{ Properties: { PolicyDocument: { Statement: Statement[] } } }>;
      const statements = policies.flatMap((p) => p.Properties.PolicyDocument.Statement);
      expect(grants(statements, logicalIdOf(bucket))).toEqual(EXPECTED);
    });
  });
});
