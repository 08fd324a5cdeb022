/**
 * What a tick costs, as a function of what it finds: a fixed part (the
 * pending-index query), a part per active shard (the claim, which reads the
 * record; the commit, which clears the marker when it drains the shard; one
 * WAL PUT) and a part per batch flushed (read
 * it, its spilled payload's GET when it has one, and whatever happens to it
 * after the commit). Fitted by least squares
 * on the measured ticks of every run, so cells too large to run are
 * computed from the same code's figures.
 */
import { InvalidInputError } from '../../lib/errors.js';

/** The quantities a tick consumes. */
export interface TickQuantities {
  requests: number;
  readUnits: number;
  writeUnits: number;
  indexWriteUnits: number;
  s3Puts: number;
  /** GETs of spilled batch payloads (`lib/memtable/spill.ts`): about one per batch when puts spill. */
  s3Gets: number;
}

/** One measured tick. */
export interface TickSample extends TickQuantities {
  activeShards: number;
  batches: number;
}

/** Cost of a tick = base + perActiveShard × active shards + perBatch × batches. */
export interface TickModel {
  base: TickQuantities;
  perActiveShard: TickQuantities;
  perBatch: TickQuantities;
  /** Ticks fitted, and the largest absolute residual in write units (how well the line fits). */
  samples: number;
  maxWriteResidual: number;
}

const FIELDS = [
  'requests',
  'readUnits',
  'writeUnits',
  'indexWriteUnits',
  's3Puts',
  's3Gets',
] as const;

/** Fits `samples` (at least three distinct (active, batches) points are needed). */
export function fitTicks(samples: readonly TickSample[]): TickModel {
  const distinct = new Set(samples.map((s) => `${s.activeShards}/${s.batches}`));
  if (distinct.size < 3) {
    throw new InvalidInputError(
      'samples',
      `expected ticks at 3 or more distinct (active shards, batches) points, got ${distinct.size}`,
    );
  }
  const rows = samples.map((s) => [1, s.activeShards, s.batches] as const);
  const fitted = {} as Record<(typeof FIELDS)[number], [number, number, number]>;
  for (const field of FIELDS) {
    fitted[field] = leastSquares(
      rows,
      samples.map((s) => s[field]),
    );
  }
  const pick = (i: 0 | 1 | 2): TickQuantities =>
    Object.fromEntries(FIELDS.map((f) => [f, fitted[f][i]])) as unknown as TickQuantities;
  const model: TickModel = {
    base: pick(0),
    perActiveShard: pick(1),
    perBatch: pick(2),
    samples: samples.length,
    maxWriteResidual: 0,
  };
  for (const s of samples) {
    const predicted = tickCost(model, s.activeShards, s.batches).writeUnits;
    model.maxWriteResidual = Math.max(model.maxWriteResidual, Math.abs(predicted - s.writeUnits));
  }
  return model;
}

/** The modelled cost of a tick that finds `activeShards` shards holding `batches` batches. */
export function tickCost(model: TickModel, activeShards: number, batches: number): TickQuantities {
  const out = {} as TickQuantities;
  for (const f of FIELDS) {
    out[f] = Math.max(
      0,
      model.base[f] + model.perActiveShard[f] * activeShards + model.perBatch[f] * batches,
    );
  }
  return out;
}

/**
 * Expected shards with at least one put in an interval, when `puts` puts
 * each pick one of `shards` shards uniformly: shards × (1 − (1 − 1/shards)^puts).
 */
export function expectedActiveShards(shards: number, puts: number): number {
  if (!(shards >= 1)) throw new InvalidInputError('shards', `expected >= 1, got ${shards}`);
  if (!(puts >= 0)) throw new InvalidInputError('puts', `expected >= 0, got ${puts}`);
  return shards * (1 - (1 - 1 / shards) ** puts);
}

/** Solves the 3-parameter least-squares problem by its normal equations. */
function leastSquares(
  rows: readonly (readonly [number, number, number])[],
  y: readonly number[],
): [number, number, number] {
  const a = [
    [0, 0, 0],
    [0, 0, 0],
    [0, 0, 0],
  ];
  const b = [0, 0, 0];
  rows.forEach((row, n) => {
    for (let i = 0; i < 3; i++) {
      b[i]! += row[i]! * y[n]!;
      for (let j = 0; j < 3; j++) a[i]![j]! += row[i]! * row[j]!;
    }
  });
  return solve3(a, b);
}

function solve3(a: number[][], b: number[]): [number, number, number] {
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let col = 0; col < 3; col++) {
    let pivot = col;
    for (let r = col + 1; r < 3; r++) {
      if (Math.abs(m[r]![col]!) > Math.abs(m[pivot]![col]!)) pivot = r;
    }
    if (Math.abs(m[pivot]![col]!) < 1e-12) {
      throw new InvalidInputError(
        'samples',
        'the ticks do not determine the fit (collinear points)',
      );
    }
    [m[col], m[pivot]] = [m[pivot]!, m[col]!];
    for (let r = 0; r < 3; r++) {
      if (r === col) continue;
      const f = m[r]![col]! / m[col]![col]!;
      for (let c = col; c < 4; c++) m[r]![c]! -= f * m[col]![c]!;
    }
  }
  return [m[0]![3]! / m[0]![0]!, m[1]![3]! / m[1]![1]!, m[2]![3]! / m[2]![2]!];
}
