/**
 * dynalite keeps its data in leveldb, which allows one opener at a time. When
 * a second dynalite opens a locked folder, the failure surfaces as an
 * unhandled stream error that kills the process, so openers probe the lock
 * first and fail with a clear error instead. (A process that wins the lock
 * between the probe and the open still crashes the loser; the window is the
 * few milliseconds between two `open` calls.)
 */
import { Level } from 'level';
import { DataDirLockedError } from './errors.js';

/** Opens `db`, the leveldb at `dir`; `DataDirLockedError` when another process holds it. */
export async function openLevelDb(db: { open: () => Promise<void> }, dir: string): Promise<void> {
  try {
    await db.open();
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    if (cause?.code === 'LEVEL_LOCKED') throw new DataDirLockedError(dir);
    throw error;
  }
}

/** Throws `DataDirLockedError` when another process holds the leveldb at `dir`. */
export async function assertLevelDbUnlocked(dir: string): Promise<void> {
  const db = new Level(dir);
  await openLevelDb(db, dir);
  await db.close();
}
