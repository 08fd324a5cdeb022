/**
 * The export deadline: how long an export may run before it must give up
 * writing its manifest, so that retention never deletes an object a
 * manifest is about to name: neither the export's own objects, which the
 * orphan sweep may take (T3 in `retention.ts`, D2), nor its base's, which
 * T1 retires with the base (D4).
 *
 * With R the export retention and S the clock skew between processes, the
 * deadline is D = max(floor((R - S) / 2), 1 s) and the sweep takes as old
 * only manifests older than A = max(R, 2D + S), which is R unless R is
 * below 2 s + S (the floor keeps an export possible at all then; the sweep
 * waits longer instead):
 *
 * D1. An export measures its run from before it reads the record (so before
 *     it writes its first object) and refuses to write its manifest once it
 *     has run longer than D (`export-shard.ts`, step 4). Its objects are left
 *     unreferenced, for the orphan sweep; the next export redoes the range.
 * D2. The sweep deletes an orphan only below O, the covered position of a
 *     manifest created more than A ago by the sweeper's clock. An export
 *     whose range lies below O read the record before O's exporter did, so
 *     it started more than A - S >= 2D ago by its own clock: past D by at
 *     least D. It cannot pass the check of D1 after the sweep decided; it
 *     can only have passed it at least D before the sweep, and then stalled
 *     between the check and its manifest landing.
 * D3. That stall (between the check and the create-if-absent landing in the
 *     store) is not bounded by this code: the check is the last step before
 *     the request, with no await between them, but a process can pause
 *     anywhere (a frozen Lambda sandbox, a stopped CLI, a request held in a
 *     network queue). In AWS it is bounded by the export function's timeout
 *     and by S3 refusing a request signed more than 15 minutes before it
 *     arrives; nothing bounds a stopped CLI. So when the write returns more
 *     than D after the start, the export confirms that every object its
 *     manifest names exists (`confirm-manifest.ts`) and deletes its own
 *     manifest when one is gone, failing loudly. A write that returns within
 *     D landed within D < A - S, before any sweep could count its objects as
 *     orphans (D2), so it needs no confirmation. A manifest naming a missing
 *     object outlives the confirmation only when a retention run that listed
 *     the manifests before the write also deletes after the confirmation
 *     (two stalls, each longer than D).
 * D4. The base. An export names its base's parts and segments (those history
 *     retention keeps), and two later exports may complete while it runs,
 *     so the base need not be among the newest two when its manifest lands.
 *     T1 therefore retires an export M only once N, the export after it (the
 *     next valid one above it, the one a fold tries before M), was created
 *     more than A ago by the retention's clock. An export X that folds onto
 *     M listed the exports after it started, and M was then the newest valid
 *     one below X's target, so either N covers X's target or more (N read
 *     the record after X did: it started, and was created, after X started)
 *     or N landed after X listed (N started less than D before it landed,
 *     D1, so less than D before X started). Either way N was created less
 *     than D before X started, so X started more than A - D - S >= D ago by
 *     its own clock when T1 retires M: it cannot pass the check of D1 after
 *     that; if it passed it before, its write returns past D and D3 confirms
 *     the base's objects with its own. What remains: D3's two stalls, or N's
 *     own write stalling past D between its check and its landing (then N
 *     confirmed itself, D3, but an export that listed during the stall chose
 *     M). The cost: a superseded export stays A after its successor was
 *     created, not A after itself.
 */
import type { ExportDeps } from './deps.js';

/** The least deadline, whatever the retention: an export must be able to finish. */
export const MIN_EXPORT_DEADLINE_MS = 1_000;

/** D of D1: the longest an export may run and still write its manifest, in ms. */
export function exportDeadlineMs(deps: ExportDeps): number {
  const retentionMs = deps.exportRetentionMs ?? deps.walRetentionMs;
  return Math.max(MIN_EXPORT_DEADLINE_MS, Math.floor((retentionMs - (deps.clockSkewMs ?? 0)) / 2));
}

/** A of D2 and D4: how old a manifest must be before the orphan sweep goes below it, or T1 retires the export before it, in ms. */
export function orphanAgeMs(deps: ExportDeps): number {
  const retentionMs = deps.exportRetentionMs ?? deps.walRetentionMs;
  return Math.max(retentionMs, 2 * exportDeadlineMs(deps) + (deps.clockSkewMs ?? 0));
}

/** Why an export that started at `startedMs` may no longer write its manifest, or undefined (D1). */
export function pastDeadline(deps: ExportDeps, startedMs: number): string | undefined {
  const deadlineMs = exportDeadlineMs(deps);
  const ranMs = deps.now() - startedMs;
  if (ranMs <= deadlineMs) return undefined;
  return `the export ran ${ranMs} ms, past its deadline of ${deadlineMs} ms (half the export retention less the clock skew, at least ${MIN_EXPORT_DEADLINE_MS} ms): retention may have swept what it wrote, so no manifest was written; the next export redoes the range`;
}

/** Whether a manifest written by an export that started at `startedMs` must be confirmed (D3). */
export function mayHaveBeenSwept(deps: ExportDeps, startedMs: number): boolean {
  return deps.now() - startedMs > exportDeadlineMs(deps);
}
