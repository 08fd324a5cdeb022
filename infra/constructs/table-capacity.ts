/**
 * How the table's capacity is bought. On demand: per request, nothing to
 * plan. Provisioned: each of the table, the `pending` index and the
 * `registry` index gets its own read and write units, which Application Auto
 * Scaling keeps at `TARGET_UTILISATION_PERCENT` of consumption within the
 * ranges of the settings (both in `capacity-settings.ts`).
 *
 * Switching modes updates the table in place (CloudFormation's `BillingMode`
 * and `ProvisionedThroughput` need no replacement), so the pinned logical id
 * keeps the data.
 */
import { BillingMode, type CfnTable, type Table } from 'aws-cdk-lib/aws-dynamodb';
import {
  type ProvisionedCapacity,
  type ScaledCapacity,
  TARGET_UTILISATION_PERCENT,
} from '../capacity-settings.js';

/** The table's billing props: on demand, or provisioned at each range's minimum. */
export function tableBilling(capacity: ProvisionedCapacity | undefined): {
  billingMode: BillingMode;
  readCapacity?: number;
  writeCapacity?: number;
} {
  if (!capacity) return { billingMode: BillingMode.PAY_PER_REQUEST };
  return {
    billingMode: BillingMode.PROVISIONED,
    readCapacity: capacity.table.read.min,
    writeCapacity: capacity.table.write.min,
  };
}

/** An index's initial units when provisioned (its range's minimum); nothing on demand. */
export function indexCapacity(capacity: ScaledCapacity | undefined): {
  readCapacity?: number;
  writeCapacity?: number;
} {
  if (!capacity) return {};
  return { readCapacity: capacity.read.min, writeCapacity: capacity.write.min };
}

/** Scales the table and both indexes (by name) on utilisation; nothing on demand. */
export function autoScaleTable(
  table: Table,
  indexNames: { pendingIndex: string; registryIndex: string },
  capacity: ProvisionedCapacity | undefined,
): void {
  if (!capacity) return;
  // The CDK leaves BillingMode out when provisioned (CloudFormation's default);
  // written out, a switch from on demand reads as one in the template and the diff.
  (table.node.defaultChild as CfnTable).billingMode = BillingMode.PROVISIONED;
  const target = { targetUtilizationPercent: TARGET_UTILISATION_PERCENT };
  const range = (r: { min: number; max: number }) => ({ minCapacity: r.min, maxCapacity: r.max });
  table.autoScaleReadCapacity(range(capacity.table.read)).scaleOnUtilization(target);
  table.autoScaleWriteCapacity(range(capacity.table.write)).scaleOnUtilization(target);
  const indexes = [
    [indexNames.pendingIndex, capacity.pendingIndex],
    [indexNames.registryIndex, capacity.registryIndex],
  ] as const;
  for (const [indexName, scaled] of indexes) {
    table
      .autoScaleGlobalSecondaryIndexReadCapacity(indexName, range(scaled.read))
      .scaleOnUtilization(target);
    table
      .autoScaleGlobalSecondaryIndexWriteCapacity(indexName, range(scaled.write))
      .scaleOnUtilization(target);
  }
}
