/**
 * A job working on a base that a newer version superseded may meet an
 * object the base lists and maintenance has deleted since (snapshot expiry
 * removed the manifest list of a snapshot the newer version dropped). That
 * is no corruption: the job starts over from the newest version, or leaves
 * the deletions to its next run (`readOrStale`, `lib/table/commit-loop.ts`).
 * The same object missing from the current version is corruption, and says
 * so. The simulation found the first case (seeds 32000338, 33000115).
 */
import { describe, expect, it } from 'vitest';
import { ListedObjectMissingError } from '../../lib/errors.js';
import { MemoryObjectStore } from '../../lib/store/memory-store.js';
import type { ListOptions, ObjectStore } from '../../lib/store/object-store.js';
import { appendTable } from '../../lib/table/append.js';
import { compactTable } from '../../lib/table/compact.js';
import { expireSnapshots } from '../../lib/table/expire.js';
import { currentSnapshot, loadCurrent } from '../../lib/table/metadata.js';
import { removeOrphans } from '../../lib/table/orphans.js';
import { keyOfUri } from '../../lib/table/paths.js';
import { readTable, testConfig, testDeps, WalWriter } from './helpers.js';

const T0 = Date.UTC(2026, 11, 1, 10);
const CONFIG = testConfig('*=all', { keepSnapshots: 1, snapshotMaxAgeMs: 0 });

/** A table `all` with shard b committed once (version 1), and shard a's WAL not yet. */
async function table() {
  const store = new MemoryObjectStore();
  const a = new WalWriter(store, 'a');
  const b = new WalWriter(store, 'b');
  for (let i = 0; i < 2; i++) {
    await a.append([{ text: `{"a":${i}}` }], T0 + i);
    await b.append([{ text: `{"b":${i}}` }], T0 + i);
  }
  const other = testDeps(store, CONFIG, 2);
  expect((await appendTable(other, 'all', ['b'])).status).toBe('committed');
  return { store, b, other };
}

/** The key of the manifest list of the table's current snapshot. */
async function currentList(store: ObjectStore): Promise<string> {
  const { metadata } = (await loadCurrent(store, 'all'))!;
  return keyOfUri(metadata.location, 'all', currentSnapshot(metadata)!['manifest-list']);
}

/**
 * A store on which, the first time the job reads `key`, another committer
 * first appends shard b's new rows and expires every older snapshot, so
 * `key` is deleted by the time the read happens.
 */
class RacingStore implements ObjectStore {
  raced = false;
  constructor(
    private readonly inner: ObjectStore,
    private readonly key: string,
    private readonly race: () => Promise<void>,
  ) {}
  async get(key: string) {
    if (key === this.key && !this.raced) {
      this.raced = true;
      await this.race();
    }
    return this.inner.get(key);
  }
  putIfAbsent(key: string, body: Uint8Array) {
    return this.inner.putIfAbsent(key, body);
  }
  putStreamIfAbsent(key: string, body: AsyncIterable<Uint8Array>) {
    return this.inner.putStreamIfAbsent(key, body);
  }
  getStream(key: string) {
    return this.inner.getStream(key);
  }
  list(prefix: string, options?: ListOptions) {
    return this.inner.list(prefix, options);
  }
  delete(key: string) {
    return this.inner.delete(key);
  }
}

function racing(store: ObjectStore, key: string, race: () => Promise<void>): RacingStore {
  return new RacingStore(store, key, race);
}

async function raceOf(t: Awaited<ReturnType<typeof table>>) {
  await t.b.append([{ text: '{"b":"late"}' }], T0 + 10);
  t.other.clock.ms += 1000;
  expect((await appendTable(t.other, 'all', ['b'])).status).toBe('committed');
  t.other.clock.ms += 1000;
  expect((await expireSnapshots(t.other, 'all')).deleted).toBeGreaterThan(0);
}

/**
 * `table()` with b's third row committed too (version 2), and the deps of a
 * job `aheadMs` later on a store where the race runs once the job reads
 * version 2's manifest list.
 */
async function committedTwice(aheadMs: number) {
  const t = await table();
  await t.b.append([{ text: '{"b":2}' }], T0 + 5);
  t.other.clock.ms += 1000;
  expect((await appendTable(t.other, 'all', ['b'])).status).toBe('committed');
  const store = racing(t.store, await currentList(t.store), () => raceOf(t));
  const deps = testDeps(store, CONFIG, 1);
  deps.clock.ms = t.other.clock.ms + aheadMs;
  return { store, deps };
}

describe('a job on a superseded base', () => {
  it('lets an append whose base lost its manifest list commit on the newest version', async () => {
    const t = await table();
    const store = racing(t.store, await currentList(t.store), () => raceOf(t));
    const deps = testDeps(store, CONFIG, 1);
    deps.clock.ms += 5000;
    const report = await appendTable(deps, 'all', ['a']);
    expect(store.raced).toBe(true);
    expect(report).toMatchObject({ status: 'committed', version: 4 });
    expect(report.conflicts).toBeGreaterThan(0);
    const rows = await readTable(deps, 'all');
    expect(rows.map((r) => r.row)).toEqual([
      '{"a":0}',
      '{"a":1}',
      '{"b":0}',
      '{"b":1}',
      '{"b":"late"}',
    ]);
  });

  it('lets a compaction whose base lost its manifest list start over on the newest version', async () => {
    const { store, deps } = await committedTwice(5000);
    const report = await compactTable(deps, 'all');
    expect(store.raced).toBe(true);
    expect(report.status).toBe('compacted');
    expect((await readTable(deps, 'all')).map((r) => r.row)).toEqual([
      '{"b":0}',
      '{"b":1}',
      '{"b":2}',
      '{"b":"late"}',
    ]);
  });

  it('lets an expiry or an orphan removal whose base lost a manifest list delete nothing', async () => {
    for (const job of [expireSnapshots, removeOrphans]) {
      const { store, deps } = await committedTwice(10 * 3_600_000);
      const report = await job(deps, 'all');
      expect(store.raced, job.name).toBe(true);
      expect(report.deleted, job.name).toBe(0);
      expect((await readTable(deps, 'all')).map((r) => r.row)).toHaveLength(4);
    }
  });

  it('fails loud when the current version lists a manifest list that is missing', async () => {
    const t = await table();
    await t.store.delete(await currentList(t.store));
    await t.b.append([{ text: '{"b":2}' }], T0 + 5);
    t.other.clock.ms += 1000;
    // A clock that moves on, so a job that took this for a superseded base gives up, not spins.
    const deps = { ...t.other, now: () => (t.other.clock.ms += 1_000) };
    await expect(appendTable(deps, 'all', ['b'])).rejects.toThrow(ListedObjectMissingError);
    await expect(compactTable(deps, 'all')).rejects.toThrow(ListedObjectMissingError);
  });
});
