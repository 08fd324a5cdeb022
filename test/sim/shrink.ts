/**
 * Shrinking a failing schedule: with the same seed, try smaller variants
 * (fewer puts, shards, exports, verifies, rebuilds; one kind of fault at a
 * time switched off; no spilling) and keep each that still fails, until none does. The
 * result is the shortest trace this search finds for the failure.
 */
import { runSchedule, type ScheduleResult } from './run-schedule.js';
import type { ScheduleParams } from './workload.js';

/** Variants of `params` one notch smaller, most promising first. */
function smaller(params: ScheduleParams): ScheduleParams[] {
  const out: ScheduleParams[] = [];
  const halve = (n: number) => Math.floor(n / 2);
  if (params.puts > 1) out.push({ ...params, puts: halve(params.puts) || 1 });
  if (params.puts > 1) out.push({ ...params, puts: params.puts - 1 });
  for (const field of ['exports', 'verifies', 'rebuilds', 'bigPuts'] as const) {
    if (params[field] > 0) out.push({ ...params, [field]: 0 });
  }
  if (params.shards > 1) out.push({ ...params, shards: 1 });
  for (const field of ['actorFaults', 'dynamoFaults', 'storeFaults'] as const) {
    if (params[field]) out.push({ ...params, [field]: false });
  }
  if (params.spillBytes !== undefined) out.push({ ...params, spillBytes: undefined });
  if (params.claimAhead) out.push({ ...params, claimAhead: false });
  for (const field of ['expiry', 'retention', 'fifo', 'viaClient'] as const) {
    if (params[field]) out.push({ ...params, [field]: false });
  }
  if (params.readers > 0) out.push({ ...params, readers: 0 });
  if (params.spanMs > 1_000) out.push({ ...params, spanMs: halve(params.spanMs) });
  return out;
}

/** The smallest failing variant of `failing` this search finds (at most `budget` runs). */
export async function shrink(failing: ScheduleResult, budget = 200): Promise<ScheduleResult> {
  let best = failing;
  let runs = 0;
  for (let improved = true; improved && runs < budget; ) {
    improved = false;
    for (const candidate of smaller(best.params)) {
      if (runs++ >= budget) break;
      const result = await runSchedule(candidate);
      if (result.violations.length > 0) {
        best = result;
        improved = true;
        break;
      }
    }
  }
  return best;
}
