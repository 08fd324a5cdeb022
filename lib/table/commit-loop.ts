/**
 * The loser's loop of C2 (`commit.ts`), shared by the append and the
 * compaction: a change written against one base is committed on the newest
 * base, re-applied after each lost commit while it still applies there, and
 * only while its files are young enough to commit (O3 in `orphans.ts`: less
 * than half the orphan age since they were made). A change that no longer
 * applies (append: a high-water moved, A3; compaction: a replaced file is
 * gone) stops the loop, and the caller starts over from a fresh read.
 */
import { ListedObjectMissingError } from '../errors.js';
import type { TableDeps } from './deps.js';
import { type LoadedMetadata, loadCurrent } from './metadata.js';

/** Fresh starts of a change before the run gives up (the next run goes on). */
export const COMMIT_ATTEMPTS = 8;

/** What one try on a base did: committed, lost to another committer, or found the change stale. */
export const CommitTry = { committed: 'committed', lost: 'lost', stale: 'stale' } as const;
export type CommitTry = (typeof CommitTry)[keyof typeof CommitTry];

/**
 * Tries `commitOn` on `base`, then on each newer base a lost commit reveals,
 * counting each loss in `report.conflicts`. Returns whether it committed,
 * with the base it committed on (else the newest base it read).
 */
export async function commitOnNewest(
  deps: TableDeps,
  table: string,
  base: LoadedMetadata | undefined,
  madeAtMs: number,
  report: { conflicts: number },
  commitOn: (base: LoadedMetadata | undefined) => Promise<CommitTry>,
): Promise<{ committed: boolean; base: LoadedMetadata | undefined }> {
  let current = base;
  while (deps.now() - madeAtMs < deps.config.orphanAgeMs / 2) {
    const tried = await commitOn(current);
    if (tried === CommitTry.committed) return { committed: true, base: current };
    if (tried === CommitTry.stale) break;
    report.conflicts += 1;
    current = await loadCurrent(deps.store, table);
  }
  return { committed: false, base: current };
}

/**
 * Runs `read`, which reads what `base` lists. An object it lists that is
 * missing while a newer version of the table exists is no corruption:
 * snapshot expiry or orphan removal deleted it after a newer version
 * dropped it, and this job is merely behind. Then `stale` is returned (the
 * caller starts over from the newest version, or gives up until its next
 * run). Missing while `base` is still the current version, it is corrupt
 * and the error stands.
 */
export async function readOrStale<T, S>(
  deps: Pick<TableDeps, 'store'>,
  table: string,
  base: LoadedMetadata | undefined,
  read: () => Promise<T>,
  stale: S,
): Promise<T | S> {
  try {
    return await read();
  } catch (error) {
    if (!(error instanceof ListedObjectMissingError)) throw error;
    const now = await loadCurrent(deps.store, table);
    if ((now?.version ?? 0) > (base?.version ?? 0)) return stale;
    throw error;
  }
}
