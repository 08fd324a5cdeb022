import { describe, expect, it } from 'vitest';
import { ASSUMPTIONS } from '../../../bench/cost/assumptions.js';
import { PRICES_US_EAST_1, type PriceTable } from '../../../bench/cost/billing/prices.js';
import { BATCH_ITEM_OVERHEAD_BYTES } from '../../../bench/cost/codec.js';
import {
  breakEvenBytes,
  SPILL_POINTER_BYTES,
  type SpillInputs,
  spillObjectLifetimeSeconds,
} from '../../../bench/cost/spill.js';
import { CapacityMode, SPILL_BYTES_DEFAULT, validateSettings } from '../../../lib/config.js';
import { batchExpiryMs } from '../../../lib/liveness.js';

/** The price table with provisioned capacity priced per unit used at the target utilisation. */
function provisionedPerUnit(prices: PriceTable): PriceTable {
  const perMillion = (hourUsd: number) =>
    (hourUsd / 3600 / ASSUMPTIONS.provisionedTargetUtilisation) * 1e6;
  const d = prices.dynamodb;
  return {
    ...prices,
    dynamodb: {
      ...d,
      writeRequestUnit: { ...d.writeRequestUnit, usd: perMillion(d.writeCapacityUnitHour.usd) },
      readRequestUnit: { ...d.readRequestUnit, usd: perMillion(d.readCapacityUnitHour.usd) },
    },
  };
}

describe('SPILL_BYTES_DEFAULT', () => {
  const inputs: SpillInputs = {
    itemOverheadBytes: BATCH_ITEM_OVERHEAD_BYTES,
    pointerItemBytes: BATCH_ITEM_OVERHEAD_BYTES + SPILL_POINTER_BYTES,
    deletedAtCommit: false,
    itemLifetimeSeconds:
      batchExpiryMs(validateSettings({})) / 1000 + ASSUMPTIONS.ttlDelayDays * 86_400,
    pitr: true,
    objectLifetimeSeconds: spillObjectLifetimeSeconds(true),
    monthSeconds: ASSUMPTIONS.monthHours * 3600,
  };
  const roundedUpToKiB = (bytes: number | undefined) => Math.ceil((bytes ?? 0) / 1024) * 1024;

  it('is the on-demand break-even of the price table, rounded up to a KiB', () => {
    expect(SPILL_BYTES_DEFAULT[CapacityMode.onDemand]).toBe(
      roundedUpToKiB(breakEvenBytes(inputs, PRICES_US_EAST_1)),
    );
  });

  it('is the provisioned break-even of the price table, rounded up to a KiB', () => {
    expect(SPILL_BYTES_DEFAULT[CapacityMode.provisioned]).toBe(
      roundedUpToKiB(breakEvenBytes(inputs, provisionedPerUnit(PRICES_US_EAST_1))),
    );
  });
});
