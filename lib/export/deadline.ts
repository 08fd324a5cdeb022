/**
 * The export deadline: how long an export may run before it must give up
 * writing its manifest, so that retention's orphan sweep (T3 in
 * `retention.ts`) never deletes an object a manifest is about to name.
 *
 * With R the export retention, S the clock skew between processes and
 * D = floor((R - S) / 2) the deadline (0 when R <= S):
 *
 * D1. An export measures its run from before it reads the record (so before
 *     it writes its first object) and refuses to write its manifest once it
 *     has run longer than D (`export-shard.ts`, step 4). Its objects are left
 *     unreferenced, for the orphan sweep; the next export redoes the range.
 * D2. The sweep deletes an orphan only below O, the covered position of a
 *     manifest created more than R ago by the sweeper's clock. An export
 *     whose range lies below O read the record before O's exporter did, so
 *     it started more than R - S ago by its own clock: past D by at least
 *     R - S - D = ceil((R - S) / 2). It cannot pass the check of D1 after
 *     the sweep decided; it can only have passed it at least that long
 *     before the sweep, and then stalled between the check and its manifest
 *     landing.
 * D3. That stall (between the check and the create-if-absent landing in the
 *     store) is not bounded by this code: the check is the last step before
 *     the request, with no await between them, but a process can pause
 *     anywhere (a frozen Lambda sandbox, a stopped CLI, a request held in a
 *     network queue). In AWS it is bounded by the export function's timeout
 *     and by S3 refusing a request signed more than 15 minutes before it
 *     arrives; nothing bounds a stopped CLI. So after writing, the export
 *     confirms that every object its manifest names exists
 *     (`confirm-manifest.ts`) and deletes its own manifest when one is gone,
 *     failing loudly: a manifest naming a missing object outlives the stall
 *     only when a retention run that listed the manifests before the write
 *     also deletes after the confirmation (two stalls, each longer than
 *     ceil((R - S) / 2)).
 */
import type { ExportDeps } from './deps.js';

/** D of D1: the longest an export may run and still write its manifest, in ms. */
export function exportDeadlineMs(deps: ExportDeps): number {
  const retentionMs = deps.exportRetentionMs ?? deps.walRetentionMs;
  return Math.max(0, Math.floor((retentionMs - (deps.clockSkewMs ?? 0)) / 2));
}

/** Why an export that started at `startedMs` may no longer write its manifest, or undefined (D1). */
export function pastDeadline(deps: ExportDeps, startedMs: number): string | undefined {
  const deadlineMs = exportDeadlineMs(deps);
  const ranMs = deps.now() - startedMs;
  if (ranMs <= deadlineMs) return undefined;
  return `the export ran ${ranMs} ms, past its deadline of ${deadlineMs} ms (half the export retention less the clock skew): retention may have swept what it wrote, so no manifest was written; the next export redoes the range`;
}
