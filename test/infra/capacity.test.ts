/**
 * The table's capacity modes: on demand (the default), or provisioned with
 * auto scaling of the table and both indexes at the one target utilisation
 * the cost model also prices. A mode switch updates the table in place: same
 * logical id, still retained.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ASSUMPTIONS } from '../../bench/cost/assumptions.js';
import { CAPACITY_DEFAULTS, TARGET_UTILISATION_PERCENT } from '../../infra/capacity-settings.js';
import { logicalIdOf } from '../../infra/constructs/nag.js';
import { PINNED_LOGICAL_IDS } from '../../infra/pinned-ids.js';
import { type Synthesized, synth } from './support.js';

interface Resource {
  Type: string;
  Properties: Record<string, unknown>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
}

let onDemand: Synthesized;
let provisioned: Synthesized;
beforeAll(() => {
  onDemand = synth({});
  provisioned = synth({
    capacityMode: 'provisioned',
    tableWriteCapacity: '20-2000',
    registryIndexReadCapacity: '2',
  });
});

const resources = (x: Synthesized) => x.template.toJSON().Resources as Record<string, Resource>;
const tableOf = (x: Synthesized) => resources(x)[logicalIdOf(x.service.storage.table)]!;
const ofType = (x: Synthesized, type: string) =>
  Object.values(resources(x)).filter((r) => r.Type === type);

/** Scalable targets as `<resource suffix> <dimension>: <min>-<max>`, sorted. */
function scalingRanges(x: Synthesized): string[] {
  return ofType(x, 'AWS::ApplicationAutoScaling::ScalableTarget')
    .map((r) => {
      const p = r.Properties as {
        ResourceId: { 'Fn::Join': [string, unknown[]] };
        ScalableDimension: string;
        MinCapacity: number;
        MaxCapacity: number;
      };
      const parts = p.ResourceId['Fn::Join'][1];
      const index = typeof parts[2] === 'string' ? parts[2] : '';
      return `table${index} ${p.ScalableDimension}: ${p.MinCapacity}-${p.MaxCapacity}`;
    })
    .sort();
}

describe('Storage', () => {
  describe('capacity', () => {
    it('is on demand by default, with no provisioned throughput and no auto scaling', () => {
      const table = tableOf(onDemand).Properties;
      expect(table.BillingMode).toBe('PAY_PER_REQUEST');
      expect(table.ProvisionedThroughput).toBeUndefined();
      for (const index of table.GlobalSecondaryIndexes as Record<string, unknown>[]) {
        expect(index.ProvisionedThroughput).toBeUndefined();
      }
      expect(ofType(onDemand, 'AWS::ApplicationAutoScaling::ScalableTarget')).toEqual([]);
    });

    it('provisions the table and both indexes at the minimum of their ranges', () => {
      const table = tableOf(provisioned).Properties;
      expect(table.BillingMode).toBe('PROVISIONED');
      expect(table.ProvisionedThroughput).toEqual({
        ReadCapacityUnits: 10,
        WriteCapacityUnits: 20,
      });
      const byIndex = Object.fromEntries(
        (
          table.GlobalSecondaryIndexes as { IndexName: string; ProvisionedThroughput: unknown }[]
        ).map((index) => [index.IndexName, index.ProvisionedThroughput]),
      );
      expect(byIndex).toEqual({
        pending: { ReadCapacityUnits: 5, WriteCapacityUnits: 5 },
        registry: { ReadCapacityUnits: 2, WriteCapacityUnits: 1 },
      });
    });

    it('scales reads and writes of the table and of each index within their ranges', () => {
      const d = CAPACITY_DEFAULTS;
      expect(scalingRanges(provisioned)).toEqual(
        [
          `table dynamodb:table:ReadCapacityUnits: ${d.table.read.min}-${d.table.read.max}`,
          'table dynamodb:table:WriteCapacityUnits: 20-2000',
          `table/index/pending dynamodb:index:ReadCapacityUnits: ${d.pendingIndex.read.min}-${d.pendingIndex.read.max}`,
          `table/index/pending dynamodb:index:WriteCapacityUnits: ${d.pendingIndex.write.min}-${d.pendingIndex.write.max}`,
          'table/index/registry dynamodb:index:ReadCapacityUnits: 2-2',
          `table/index/registry dynamodb:index:WriteCapacityUnits: ${d.registryIndex.write.min}-${d.registryIndex.write.max}`,
        ].sort(),
      );
    });

    it('tracks 70 % utilisation on every scaled dimension, the figure the cost model prices', () => {
      const policies = ofType(provisioned, 'AWS::ApplicationAutoScaling::ScalingPolicy');
      expect(policies).toHaveLength(6);
      for (const policy of policies) {
        expect(policy.Properties).toMatchObject({
          PolicyType: 'TargetTrackingScaling',
          TargetTrackingScalingPolicyConfiguration: { TargetValue: 70 },
        });
      }
      expect(TARGET_UTILISATION_PERCENT).toBe(70);
      expect(ASSUMPTIONS.provisionedTargetUtilisation).toBe(TARGET_UTILISATION_PERCENT / 100);
    });

    it('keeps the pinned logical id, retention and deletion protection in both modes (a switch never replaces the table)', () => {
      for (const x of [onDemand, provisioned]) {
        expect(logicalIdOf(x.service.storage.table)).toBe(PINNED_LOGICAL_IDS.table);
        const table = tableOf(x);
        expect([table.DeletionPolicy, table.UpdateReplacePolicy]).toEqual(['Retain', 'Retain']);
        expect(table.Properties.DeletionProtectionEnabled).toBe(true);
      }
      // Only properties CloudFormation updates in place differ between the modes.
      const differing = new Set(
        [
          ...Object.keys(tableOf(onDemand).Properties),
          ...Object.keys(tableOf(provisioned).Properties),
        ].filter(
          (key) =>
            JSON.stringify(tableOf(onDemand).Properties[key]) !==
            JSON.stringify(tableOf(provisioned).Properties[key]),
        ),
      );
      expect([...differing].sort()).toEqual([
        'BillingMode',
        'GlobalSecondaryIndexes',
        'ProvisionedThroughput',
      ]);
    });
  });
});
