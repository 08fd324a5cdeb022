/**
 * Typed values a table refused: a value its declared type cannot hold
 * exactly is stored as null in that column (the `row` column keeps its
 * text), and each append records how many per column in its snapshot
 * summary (`progress.ts`, `shardwal.refused`). Verify reports the appends of
 * a recent window as findings (`lib/recovery/verify-all.ts`): a declared
 * schema that does not fit the rows is something an operator fixes.
 */
import { ConfigError } from '../errors.js';
import type { ObjectStore } from '../store/object-store.js';
import { loadCurrent } from './metadata.js';
import { appendedOf, REFUSED_KEY } from './progress.js';

/** One append that refused values. */
export interface RefusedAppend {
  table: string;
  snapshotId: number;
  timestampMs: number;
  /** The shards whose rows it appended. */
  shards: string[];
  /** Values left null, by column. */
  counts: Record<string, number>;
}

/** The appends of `table` committed at or after `sinceMs` that refused values, oldest first. */
export async function refusedAppendsSince(
  store: ObjectStore,
  table: string,
  sinceMs: number,
): Promise<RefusedAppend[]> {
  const loaded = await loadCurrent(store, table);
  const out: RefusedAppend[] = [];
  for (const snapshot of loaded?.metadata.snapshots ?? []) {
    const text = snapshot.summary[REFUSED_KEY];
    if (!text || snapshot['timestamp-ms'] < sinceMs) continue;
    out.push({
      table,
      snapshotId: snapshot['snapshot-id'],
      timestampMs: snapshot['timestamp-ms'],
      shards: Object.keys(appendedOf(snapshot)).sort(),
      counts: JSON.parse(text) as Record<string, number>,
    });
  }
  return out.sort((a, b) => a.timestampMs - b.timestampMs);
}

/**
 * How far back verify looks for appends that refused values: the verify
 * schedule's period (the construct sets it from `verifyEveryMinutes`), so
 * each such append is reported by the run after it. Default an hour, the
 * default period.
 */
export const FINDING_WINDOW = {
  env: 'SHARDWAL_TABLE_FINDING_WINDOW_MS',
  default: 3_600_000,
} as const;

/** The finding window from the environment. */
export function findingWindowMsFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[FINDING_WINDOW.env]?.trim();
  if (!raw) return FINDING_WINDOW.default;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) {
    throw new ConfigError(FINDING_WINDOW.env, raw, 'expected a whole number of at least 1');
  }
  return value;
}
