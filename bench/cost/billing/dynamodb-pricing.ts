/**
 * Prices DynamoDB capacity units in either capacity mode.
 *
 * On-demand bills every consumed unit as a request unit. Provisioned bills
 * capacity per hour whether used or not; here the capacity is the one a
 * steady workload at the measured rate needs when auto scaling holds it at
 * `targetUtilisation` ("auto scaling ... based on the specified utilization
 * rate", https://aws.amazon.com/dynamodb/pricing/provisioned/). That is an
 * extrapolation: real tables provision for peaks, round to whole units and
 * scale with a lag, so it is a lower bound on the provisioned bill.
 */
import { InvalidInputError } from '../../../lib/errors.js';
import { type PriceTable, priceOf } from './prices.js';

/** Units a workload consumed. */
export interface DynamoDbUnits {
  readUnits: number;
  /** Table write units. */
  writeUnits: number;
  /** Global secondary index write units (billed like table writes). */
  indexWriteUnits: number;
}

/** How the table is billed. */
export type CapacityMode =
  | { mode: 'on-demand' }
  | {
      mode: 'provisioned';
      /** Wall time the units were consumed over. */
      durationSeconds: number;
      /** Fraction of provisioned capacity used at steady state, in (0, 1]. */
      targetUtilisation: number;
    };

/** USD of each DynamoDB throughput line. */
export interface DynamoDbThroughputCost {
  readsUsd: number;
  writesUsd: number;
  indexWritesUsd: number;
}

/** Capacity units per second needed to serve `units` over `durationSeconds` at `targetUtilisation`. */
export function provisionedCapacity(
  units: number,
  durationSeconds: number,
  targetUtilisation: number,
): number {
  if (!(durationSeconds > 0)) {
    throw new InvalidInputError('durationSeconds', `expected > 0, got ${durationSeconds}`);
  }
  if (!(targetUtilisation > 0 && targetUtilisation <= 1)) {
    throw new InvalidInputError(
      'targetUtilisation',
      `expected a fraction in (0, 1], got ${targetUtilisation}`,
    );
  }
  return units / durationSeconds / targetUtilisation;
}

/** USD of `units` under `mode` at `prices`. */
export function dynamoDbThroughputCost(
  units: DynamoDbUnits,
  mode: CapacityMode,
  prices: PriceTable,
): DynamoDbThroughputCost {
  const p = prices.dynamodb;
  if (mode.mode === 'on-demand') {
    return {
      readsUsd: priceOf(p.readRequestUnit, units.readUnits),
      writesUsd: priceOf(p.writeRequestUnit, units.writeUnits),
      indexWritesUsd: priceOf(p.writeRequestUnit, units.indexWriteUnits),
    };
  }
  const hours = mode.durationSeconds / 3600;
  const capacityHours = (n: number) =>
    provisionedCapacity(n, mode.durationSeconds, mode.targetUtilisation) * hours;
  return {
    readsUsd: priceOf(p.readCapacityUnitHour, capacityHours(units.readUnits)),
    writesUsd: priceOf(p.writeCapacityUnitHour, capacityHours(units.writeUnits)),
    indexWritesUsd: priceOf(p.writeCapacityUnitHour, capacityHours(units.indexWriteUnits)),
  };
}
