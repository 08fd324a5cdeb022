/**
 * What `cdk destroy` keeps keeps its guardrails: the policy of every
 * retained bucket and queue (the overwrite deny, TLS only, log delivery) is
 * retained with it, and the policies of deleted queues go with them.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { type Synthesized, synth } from './support.js';

let s: Synthesized;
beforeAll(() => {
  s = synth({});
});

type Resources = Record<string, { Type: string; DeletionPolicy?: string; Properties: never }>;

/** Each policy of `type` with the logical id of the resource it guards. */
function guarded(type: string, targetOf: (properties: Record<string, unknown>) => unknown) {
  const resources = s.template.toJSON().Resources as Resources;
  return Object.entries(resources)
    .filter(([, r]) => r.Type === type)
    .map(([id, r]) => {
      const target = JSON.stringify(targetOf(r.Properties));
      const owner = Object.keys(resources).find((key) => target.includes(`"${key}"`));
      return { id, policy: r.DeletionPolicy, owner: owner && resources[owner]!.DeletionPolicy };
    });
}

describe('retained resources', () => {
  it('keep their bucket policies', () => {
    const policies = guarded('AWS::S3::BucketPolicy', (p) => p.Bucket);
    expect(policies).toHaveLength(2);
    for (const p of policies) {
      expect(p.owner, p.id).toBe('Retain');
      expect(p.policy, p.id).toBe('Retain');
    }
  });

  it('keep their queue policies, and deleted queues take theirs along', () => {
    const policies = guarded('AWS::SQS::QueuePolicy', (p) => p.Queues);
    expect(policies.filter((p) => p.owner === 'Retain')).toHaveLength(4);
    for (const p of policies) expect(p.policy ?? 'Delete', p.id).toBe(p.owner ?? 'Delete');
  });
});
