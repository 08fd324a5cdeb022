/**
 * The benchmark's last line, the one figure a reader quotes:
 *   cost: <X> USD/GB (standard: 1 KB rows, 100 rows/put, 100 puts/s over 10 shards, 1 s ticks, on-demand)
 * X comes from the bill of the standard workload; nothing else may print it.
 */
import { InvalidInputError } from '../../lib/errors.js';
import { STANDARD_LABEL } from './workload.js';

/** Decimals of X: a tenth of a cent per GB. */
const FINAL_LINE_DECIMALS = 3;

/** The final line for `usdPerGb`. */
export function finalLine(usdPerGb: number): string {
  if (!Number.isFinite(usdPerGb) || usdPerGb <= 0) {
    throw new InvalidInputError('usdPerGb', `expected a cost > 0, got ${usdPerGb}`);
  }
  return `cost: ${usdPerGb.toFixed(FINAL_LINE_DECIMALS)} USD/GB (${STANDARD_LABEL})`;
}

/** The line's pattern, for tests and for anyone parsing the output. */
export const FINAL_LINE_PATTERN =
  /^cost: (\d+\.\d{3}) USD\/GB \(standard: 1 KB rows, 100 rows\/put, 100 puts\/s over 10 shards, 1 s ticks, on-demand\)$/;
