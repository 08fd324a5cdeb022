/**
 * The workloads the cost benchmark measures and prints: the standard one,
 * the grid of rates and shard counts, and the SQS and idempotent variants.
 */
import { InvalidInputError } from '../../lib/errors.js';
import { DEFAULT_ROW_BYTES, RowVariant } from './rows.js';

/** How puts reach the service. */
export const Transport = { http: 'http', sqs: 'sqs' } as const;
export type Transport = (typeof Transport)[keyof typeof Transport];

/** A steady workload. */
export interface Workload {
  name: string;
  putsPerSecond: number;
  shards: number;
  rowsPerPut: number;
  /** Mean JSON bytes of a row. */
  rowBytes: number;
  variant: RowVariant;
  transport: Transport;
  /** HTTP: an Idempotency-Key on every put (SQS puts are always keyed by their message id). */
  idempotent: boolean;
  intervalMs: number;
  /** Keep every batch in DynamoDB (`SHARDWAL_SPILL_BYTES=off`): the spill decision's "before". */
  spillOff?: boolean;
}

/** The standard workload of the final line. */
export const STANDARD: Workload = {
  name: 'standard',
  putsPerSecond: 100,
  shards: 10,
  rowsPerPut: 100,
  rowBytes: DEFAULT_ROW_BYTES,
  variant: RowVariant.event,
  transport: Transport.http,
  idempotent: false,
  intervalMs: 1_000,
};

/** How the standard workload is described on the final line. */
export const STANDARD_LABEL =
  'standard: 1 KB rows, 100 rows/put, 100 puts/s over 10 shards, 1 s ticks, on-demand';

/** Rates and shard counts of the grid (the list). */
export const GRID_RATES = [10, 1_000] as const;
export const GRID_SHARDS = [1, 10, 100] as const;

/** `STANDARD` with some fields changed, named after what changed. */
export function variantOf(changes: Partial<Workload>, name?: string): Workload {
  const workload = { ...STANDARD, ...changes };
  workload.name =
    name ??
    `${workload.putsPerSecond} puts/s x ${workload.shards} shard${workload.shards === 1 ? '' : 's'}`;
  assertWorkload(workload);
  return workload;
}

/** Puts a run of `ticks` intervals holds. */
export function putsIn(workload: Workload, ticks: number): number {
  return Math.round((workload.putsPerSecond * ticks * workload.intervalMs) / 1000);
}

/** Refuses a workload that cannot run, naming the field. */
function assertWorkload(workload: Workload): void {
  const positive: (keyof Workload)[] = [
    'putsPerSecond',
    'shards',
    'rowsPerPut',
    'rowBytes',
    'intervalMs',
  ];
  for (const field of positive) {
    const value = workload[field] as number;
    if (!(Number.isFinite(value) && value > 0)) {
      throw new InvalidInputError(field, `expected a number > 0, got ${value}`);
    }
  }
  if (!Number.isInteger(workload.shards)) {
    throw new InvalidInputError('shards', `expected a whole number, got ${workload.shards}`);
  }
}
