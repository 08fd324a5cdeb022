/**
 * Provisioned capacity (`capacityMode=provisioned`): for the table and each
 * of its two indexes, a range of read units and one of write units within
 * which auto scaling holds consumption at `TARGET_UTILISATION_PERCENT`
 * (`constructs/table-capacity.ts`). Each range is one context key,
 * `"<min>-<max>"` (or `"<n>"`: fixed at n). On demand, the keys are refused:
 * an on-demand table takes no capacity, and a key that silently did nothing
 * would hide a mode the operator did not get.
 */
import { CapacityMode } from '../lib/config.js';
import { ContextError, type ContextReader, isSet } from './context-values.js';

/** What carries its own capacity: the table and its `pending` and `registry` indexes. */
export const CAPACITY_TARGETS = ['table', 'pendingIndex', 'registryIndex'] as const;
export type CapacityTarget = (typeof CAPACITY_TARGETS)[number];

/** Context keys of the ranges, by target and direction. */
export const CAPACITY_CONTEXT = {
  table: { read: 'tableReadCapacity', write: 'tableWriteCapacity' },
  pendingIndex: { read: 'pendingIndexReadCapacity', write: 'pendingIndexWriteCapacity' },
  registryIndex: { read: 'registryIndexReadCapacity', write: 'registryIndexWriteCapacity' },
} as const satisfies Record<CapacityTarget, { read: string; write: string }>;

/** A capacity context key. */
export type CapacityKey = (typeof CAPACITY_CONTEXT)[CapacityTarget]['read' | 'write'];

/**
 * Consumed over provisioned units that auto scaling aims for. Consumption
 * can rise by 1/0.7 ≈ 1.4× before a request is throttled, which covers the
 * minutes auto scaling needs to react; the cost model prices provisioned
 * units at this utilisation (`bench/cost/assumptions.ts` imports it).
 */
export const TARGET_UTILISATION_PERCENT = 70;

/** Units per second auto scaling may set, both ends included. */
export interface CapacityRange {
  readonly min: number;
  readonly max: number;
}

/** Read and write ranges of one target. */
export interface ScaledCapacity {
  readonly read: CapacityRange;
  readonly write: CapacityRange;
}

/** Validated provisioned capacity, by target. */
export type ProvisionedCapacity = Readonly<Record<CapacityTarget, ScaledCapacity>>;

/**
 * DynamoDB's bounds on one table's (or index's) provisioned units: at least 1,
 * and at most the default per-table quota of 40,000 (a higher quota is a
 * Service Quotas request, and then a code change here, on purpose).
 */
const CAPACITY_UNITS_RANGE = { min: 1, max: 40_000 } as const;

/**
 * Defaults (docs/deploy.md explains each). Minimums are what an idle stage
 * pays for around the clock; DynamoDB banks up to 300 s of unused capacity,
 * so a quiet table absorbs a burst of about 300 × min while auto scaling
 * (minutes) catches up. Maximums bound the bill and the damage of a runaway
 * producer; a put throttled past them answers 503 `unavailable`.
 *
 * - table writes 10-1000: every put writes its batch item and updates its
 *   shard record; 1000 is one partition's limit, i.e. one shard flat out.
 * - table reads 10-500: a flush reads each buffered byte once (4 KB units,
 *   a quarter of the write units), plus status reads and durable-wait polls.
 * - pending index writes 5-500: a flush marks and clears an active shard's
 *   entry (keys only, one unit each). An index short of write capacity
 *   throttles the table's writes too, so its ceiling is generous.
 * - pending index reads 5-100: one query per tick.
 * - registry index writes 1-50: one entry per new shard, written once.
 * - registry index reads 1-100: export and verify list the shards every
 *   15 and 60 minutes; banked capacity covers a page of a large registry.
 */
export const CAPACITY_DEFAULTS: ProvisionedCapacity = {
  table: { read: { min: 10, max: 500 }, write: { min: 10, max: 1_000 } },
  pendingIndex: { read: { min: 5, max: 100 }, write: { min: 5, max: 500 } },
  registryIndex: { read: { min: 1, max: 100 }, write: { min: 1, max: 50 } },
};

/** Every capacity context key. */
export const CAPACITY_KEYS: readonly string[] = CAPACITY_TARGETS.flatMap((target) => [
  CAPACITY_CONTEXT[target].read,
  CAPACITY_CONTEXT[target].write,
]);

function rangeFrom(get: ContextReader, key: string, fallback: CapacityRange): CapacityRange {
  const raw = get(key);
  if (!isSet(raw)) return fallback;
  const { min: lowest, max: highest } = CAPACITY_UNITS_RANGE;
  const text = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : '';
  const match = /^(\d+)(?:\s*-\s*(\d+))?$/.exec(text);
  if (!match) {
    throw new ContextError(key, raw, "expected '<min>-<max>' units per second, or one number");
  }
  const min = Number(match[1]);
  const max = match[2] === undefined ? min : Number(match[2]);
  if (min < lowest || max > highest) {
    throw new ContextError(key, raw, `expected units from ${lowest} to ${highest}`);
  }
  if (min > max) throw new ContextError(key, raw, `the minimum ${min} exceeds the maximum ${max}`);
  return { min, max };
}

/**
 * The provisioned capacity for `mode`: the ranges set in the context over the
 * defaults; undefined on demand. Throws `ContextError` naming the key for a
 * malformed range, and for any range given on demand.
 */
export function capacityFrom(
  get: ContextReader,
  mode: CapacityMode,
): ProvisionedCapacity | undefined {
  if (mode !== CapacityMode.provisioned) {
    const given = CAPACITY_KEYS.find((key) => isSet(get(key)));
    if (given !== undefined) {
      throw new ContextError(
        given,
        get(given),
        `only with capacityMode=${CapacityMode.provisioned}: an ${mode} table takes no capacity`,
      );
    }
    return undefined;
  }
  const scaled = (target: CapacityTarget): ScaledCapacity => ({
    read: rangeFrom(get, CAPACITY_CONTEXT[target].read, CAPACITY_DEFAULTS[target].read),
    write: rangeFrom(get, CAPACITY_CONTEXT[target].write, CAPACITY_DEFAULTS[target].write),
  });
  return {
    table: scaled('table'),
    pendingIndex: scaled('pendingIndex'),
    registryIndex: scaled('registryIndex'),
  };
}
