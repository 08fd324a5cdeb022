/**
 * The local SQS emulator's durable state: one leveldb under the data folder,
 * written with group commit.
 *
 * J1. `put` and `del` stage a key's newest value in memory (the last write
 *     of a key wins); `sync()` resolves once everything staged before the
 *     call is on disk: one atomic leveldb batch written with `sync: true`
 *     (fsync), shared by every caller that staged meanwhile.
 * J2. Batches reach the disk in the order they were staged: a key's value on
 *     disk is always one it held in memory, never an older one after a newer.
 * J3. A failed write is final: every later `sync()` rejects with it, so no
 *     caller is told its change is durable once one may not be.
 */
import { mkdir } from 'node:fs/promises';
import { Level } from 'level';
import { openLevelDb } from './leveldb-lock.js';

/** What `QueueJournal.open` found on disk: every key and its value. */
export type JournalRecords = Map<string, unknown>;

/** What the journal needs of its database (a leveldb; a fault-injecting one in tests). */
export interface JournalDb {
  batch(
    ops: ({ type: 'put'; key: string; value: unknown } | { type: 'del'; key: string })[],
    options: { sync: boolean },
  ): Promise<void>;
  close(): Promise<void>;
}

/** A leveldb with staged writes and group commit; see the module comment. */
export class QueueJournal {
  readonly #db: JournalDb;
  #staged = new Map<string, unknown>();
  /** The batch being written, if any. */
  #writing: Promise<void> | undefined;
  /** The batch that takes what is staged once `#writing` ends (J1). */
  #next: Promise<void> | undefined;
  #failure: unknown;

  /** A journal over `db`; `open` gives one over the leveldb in a folder. */
  constructor(db: JournalDb) {
    this.#db = db;
  }

  /** Opens (creating) the journal at `dir` and reads every record; DataDirLockedError when another process has it. */
  static async open(dir: string): Promise<{ journal: QueueJournal; records: JournalRecords }> {
    await mkdir(dir, { recursive: true });
    const db = new Level<string, unknown>(dir, { valueEncoding: 'json' });
    await openLevelDb(db, dir);
    const records: JournalRecords = new Map();
    for await (const [key, value] of db.iterator()) records.set(key, value);
    return { journal: new QueueJournal(db), records };
  }

  /** Stages `key` = `value` (J1). */
  put(key: string, value: unknown): void {
    this.#staged.set(key, value);
  }

  /** Stages the removal of `key` (J1). */
  del(key: string): void {
    this.#staged.set(key, undefined);
  }

  /** Resolves once every change staged before the call is on disk (J1-J3). */
  sync(): Promise<void> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    if (this.#staged.size === 0) return this.#writing ?? Promise.resolve();
    this.#next ??= this.#writeNext();
    return this.#next;
  }

  async #writeNext(): Promise<void> {
    // J2: one batch at a time; this one takes whatever was staged by the time the last ends.
    await this.#writing?.catch(() => undefined);
    this.#next = undefined;
    if (this.#failure !== undefined) throw this.#failure;
    const staged = this.#staged;
    this.#staged = new Map();
    const ops = [...staged].map(([key, value]) =>
      value === undefined ? { type: 'del' as const, key } : { type: 'put' as const, key, value },
    );
    this.#writing = this.#db.batch(ops, { sync: true }).catch((error: unknown) => {
      this.#failure ??= error;
      throw error;
    });
    try {
      await this.#writing;
    } finally {
      this.#writing = undefined;
    }
  }

  /** Writes what is staged, then closes the database. */
  async close(): Promise<void> {
    try {
      await this.sync();
    } finally {
      await this.#db.close();
    }
  }
}
