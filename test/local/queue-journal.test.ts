import { describe, expect, it } from 'vitest';
import { type JournalDb, QueueJournal } from '../../lib/local/queue-journal.js';

type Ops = Parameters<JournalDb['batch']>[0];

/** A database whose batches are recorded and finish when the test says so. */
function heldDb() {
  const batches: { ops: Ops; sync: boolean }[] = [];
  const pending: { resolve: () => void; reject: (error: Error) => void }[] = [];
  const db: JournalDb = {
    batch: (ops, options) => {
      batches.push({ ops, sync: options.sync });
      return new Promise<void>((resolve, reject) => pending.push({ resolve, reject }));
    },
    close: async () => {},
  };
  const flush = () => new Promise((resolve) => setTimeout(resolve, 0));
  return { db, batches, pending, flush };
}

describe('QueueJournal', () => {
  describe('sync', () => {
    it('writes what was staged in one synced batch shared by every caller meanwhile (J1)', async () => {
      const { db, batches, pending, flush } = heldDb();
      const journal = new QueueJournal(db);
      journal.put('a', 1);
      const first = journal.sync();
      journal.put('b', 2);
      journal.put('a', 3); // the last write of a key wins
      journal.del('c');
      const second = journal.sync();
      await flush();
      expect(batches).toEqual([
        {
          ops: [
            { type: 'put', key: 'a', value: 3 },
            { type: 'put', key: 'b', value: 2 },
            { type: 'del', key: 'c' },
          ],
          sync: true,
        },
      ]);
      expect(second).toBe(first);
      pending[0]!.resolve();
      await Promise.all([first, second]);
    });

    it('writes what is staged during a batch in the next one, after it (J2)', async () => {
      const { db, batches, pending, flush } = heldDb();
      const journal = new QueueJournal(db);
      journal.put('a', 1);
      const first = journal.sync();
      await flush();
      journal.put('a', 2);
      let secondDone = false;
      const second = journal.sync().then(() => {
        secondDone = true;
      });
      await flush();
      expect(batches).toHaveLength(1); // the second waits for the first
      pending[0]!.resolve();
      await first;
      await flush();
      expect(batches.map((b) => b.ops)).toEqual([
        [{ type: 'put', key: 'a', value: 1 }],
        [{ type: 'put', key: 'a', value: 2 }],
      ]);
      expect(secondDone).toBe(false);
      pending[1]!.resolve();
      await second;
      // Nothing staged: a sync with no batch running resolves at once.
      await journal.sync();
      expect(batches).toHaveLength(2);
    });

    it('answers a sync with nothing new staged only once the batch being written is on disk (Q1)', async () => {
      const { db, pending, flush } = heldDb();
      const journal = new QueueJournal(db);
      journal.put('a', 1);
      const first = journal.sync();
      await flush();
      // A second request whose change went into the running batch: nothing is staged for it.
      let secondDone = false;
      const second = journal.sync().then(() => {
        secondDone = true;
      });
      await flush();
      expect(secondDone).toBe(false);
      pending[0]!.resolve();
      await Promise.all([first, second]);
      expect(secondDone).toBe(true);
    });

    it('writes one batch at a time: a sync during the wait for one joins the next batch (J2)', async () => {
      const { db, batches, pending, flush } = heldDb();
      const journal = new QueueJournal(db);
      journal.put('m', 'sent');
      const first = journal.sync();
      await flush();
      journal.put('n', 'sent');
      const second = journal.sync();
      await flush();
      journal.del('m'); // received and deleted while the first batch is still being written
      const third = journal.sync();
      await flush();
      pending[0]!.resolve();
      await first;
      await flush();
      // One batch after the first, holding both later changes: a delete never races its put.
      expect(batches.map((b) => b.ops)).toEqual([
        [{ type: 'put', key: 'm', value: 'sent' }],
        [
          { type: 'put', key: 'n', value: 'sent' },
          { type: 'del', key: 'm' },
        ],
      ]);
      pending[1]!.resolve();
      await Promise.all([second, third]);
    });

    it('fails its callers and every later sync once a write failed (J3)', async () => {
      const { db, pending, flush } = heldDb();
      const journal = new QueueJournal(db);
      journal.put('a', 1);
      const first = journal.sync();
      await flush();
      pending[0]!.reject(new Error('disk full'));
      await expect(first).rejects.toThrow('disk full');
      journal.put('b', 2);
      await expect(journal.sync()).rejects.toThrow('disk full');
      await expect(journal.sync()).rejects.toThrow('disk full');
    });
  });
});
