/**
 * The simulation's checks of issue 20's areas (the guarantees are stated in
 * `checker.ts`'s list, V8 on):
 *
 * V8.  Nothing pending ever expires (L5): at every check, no batch item (head
 *      or chunk) above `durableSeq` has a TTL already past.
 * V9.  The stall refusal holds (L5 / A3): no allocation applies while the
 *      shard's oldest pending batch is older than half the batch lifetime.
 * V10. Retention never removes what a live manifest or the WAL tail needs:
 *      the newest two valid manifests, and every manifest younger than the
 *      export retention, list only objects that exist; every WAL object from
 *      the second newest valid manifest's covered position on exists.
 * V11. A tail reader never skips or repeats a seq, export boundaries
 *      included: read from the end state with `fromSeq` at and around each
 *      export's boundary, it yields exactly the rows the chain holds from
 *      there (keyed changes only above the newest export); a reader run
 *      during the run, racing exports and retention, yields only rows of the
 *      chain, in order, and every keyless row between its start and the last
 *      seq it yielded.
 * V12. Quarantined copies have no TTL: they stay until an operator re-puts them.
 * V14. An export never leaves a manifest naming what retention deleted (E5,
 *      D4 in `lib/export/deadline.ts`): checked the moment each export
 *      returns, its manifest, while young, lists only objects that exist,
 *      its base's parts and segments included (an export held at a fault
 *      point while two later exports of its shard complete with their
 *      retention is the case this catches, `run-schedule.ts`).
 */
import { QueryCommand } from '@aws-sdk/client-dynamodb';
import { tailShard } from '../../lib/client/reader/tail-shard.js';
import { CorruptDataError, HistoryFloorError, ShardwalError } from '../../lib/errors.js';
import { type Manifest, manifestPrefix } from '../../lib/manifest/format.js';
import { batchRange, shardPk } from '../../lib/memtable/table.js';
import { walKey } from '../../lib/paths.js';
import { listExports, loadManifest } from '../../lib/recovery/export-source.js';
import { segmentKey, storedSegments } from '../../lib/segment/format.js';
import { snapshotPartKey } from '../../lib/snapshot/format.js';
import type { ObjectStore } from '../../lib/store/object-store.js';
import type { WalObject, WalRow } from '../../lib/wal/format.js';
import type { MemoryDynamoDB } from '../support/sim-dynamodb/memory-dynamodb.js';

/** V8 for one shard's record at clock instant `clockMs`. */
export async function checkPendingExpiry(
  db: MemoryDynamoDB,
  tableName: string,
  shard: string,
  record: { durableSeq: number; nextSeq: number },
  clockMs: number,
  fail: (text: string) => void,
): Promise<void> {
  if (record.nextSeq - 1 <= record.durableSeq) return;
  const range = batchRange(record.durableSeq + 1, record.nextSeq - 1);
  const out = await db.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :lo AND :hi',
      ExpressionAttributeValues: {
        ':pk': { S: shardPk(shard) },
        ':lo': { S: range.lo },
        ':hi': { S: range.hi },
      },
      ConsistentRead: true,
    }),
  );
  for (const item of out.Items ?? []) {
    const expires = item.expiresAt?.N;
    if (expires !== undefined && Number(expires) * 1000 < clockMs) {
      fail(
        `${shard}: ${item.sk?.S} is pending (durableSeq ${record.durableSeq}) but expired at ${Number(expires) * 1000 - clockMs} ms from now`,
      );
    }
  }
}

/** V12: quarantined copies carry no TTL. */
export async function checkQuarantineTtl(
  db: MemoryDynamoDB,
  tableName: string,
  shard: string,
  fail: (text: string) => void,
): Promise<void> {
  const out = await db.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :rejected)',
      ExpressionAttributeValues: { ':pk': { S: shardPk(shard) }, ':rejected': { S: 'rejected#' } },
      ConsistentRead: true,
    }),
  );
  for (const item of out.Items ?? []) {
    if (item.expiresAt !== undefined) fail(`${shard}: quarantined ${item.sk?.S} has a TTL`);
  }
}

/** The shard's manifests that decode, oldest first. */
export async function validManifests(store: ObjectStore, shard: string): Promise<Manifest[]> {
  const out: Manifest[] = [];
  for (const ref of await listExports(store, shard)) {
    if (ref.kind !== 'manifest') continue;
    const manifest = await loadManifest(store, ref).catch(() => undefined);
    if (manifest) out.push(manifest);
  }
  return out.sort((a, b) => a.header.coveredPosition - b.header.coveredPosition);
}

/** Keys of the parts and segments `manifest` lists that the store does not hold (a table segment has none: V16 checks its table). */
async function missingKeys(
  store: ObjectStore,
  shard: string,
  manifest: Manifest,
): Promise<string[]> {
  const keys = [
    ...manifest.parts.map((part) => snapshotPartKey(shard, part)),
    ...storedSegments(manifest.segments).map((segment) => segmentKey(shard, segment.first)),
  ];
  const missing: string[] = [];
  for (const key of keys) if ((await store.get(key)) === undefined) missing.push(key);
  return missing;
}

/** V14 for the manifest at `key` an export just wrote or adopted (none there: retired since). */
export async function checkWrittenManifest(
  store: ObjectStore,
  shard: string,
  key: string,
  young: (createdAtMs: number) => boolean,
  fail: (text: string) => void,
): Promise<void> {
  const manifest = await loadManifest(store, { key, coveredPosition: 0, kind: 'manifest' }).catch(
    () => undefined,
  );
  if (!manifest || !young(manifest.header.createdAtMs)) return;
  for (const missing of await missingKeys(store, shard, manifest)) {
    fail(
      `${shard}: the export that wrote ${key} returned with it listing ${missing}, which is gone`,
    );
  }
}

/** V10 over the end state. */
export async function checkRetention(
  store: ObjectStore,
  shard: string,
  walNextPos: number,
  young: (createdAtMs: number) => boolean,
  fail: (text: string) => void,
): Promise<void> {
  const manifests = await validManifests(store, shard);
  const needed = new Set(manifests.slice(-2));
  for (const m of manifests) if (young(m.header.createdAtMs)) needed.add(m);
  for (const m of needed) {
    for (const key of await missingKeys(store, shard, m)) {
      fail(
        `${shard}: the manifest covering ${m.header.coveredPosition} lists ${key}, which is gone`,
      );
    }
  }
  // Damaged manifests count here: retention weighed them while they were whole.
  const positions = (await listExports(store, shard)).map((ref) => ref.coveredPosition);
  positions.sort((a, b) => a - b);
  const fallback = positions.length >= 2 ? positions.at(-2)! : 0;
  for (let position = fallback; position < walNextPos; position++) {
    if ((await store.get(walKey(shard, position))) === undefined) {
      fail(
        `${shard}: WAL position ${position} is gone, at or above the fallback export's ${fallback}`,
      );
      return;
    }
  }
}

/** A row as V11 compares it. */
interface Seen {
  seq: number;
  offset: number;
  text: string | undefined;
  key: string | undefined;
}

const seen = (row: WalRow): Seen => ({
  seq: row.seq,
  offset: row.offset,
  text: row.text,
  key: row.key,
});

/** V11 over the end state: tails from seqs at and around every export boundary. */
export async function checkTails(
  store: ObjectStore,
  shard: string,
  chain: readonly WalObject[],
  extraFroms: readonly number[],
  damagedKeys: ReadonlySet<string>,
  fail: (text: string) => void,
): Promise<void> {
  const manifests = await validManifests(store, shard);
  const damaged = new Set([...damagedKeys].filter((key) => key.startsWith(manifestPrefix(shard))));
  const newest = manifests.at(-1)?.header;
  const covered = newest?.coveredPosition ?? 0;
  const floor = newest?.historyFloor ?? 0;
  const froms = new Set<number>([1, ...extraFroms]);
  for (const m of manifests) {
    for (const d of [-1, 0, 1, 2]) froms.add(m.header.lastSeq + d);
  }
  // A few starts inside the WAL too (each tail reads on to the end: keep them few).
  for (const at of [0.25, 0.5, 0.75]) {
    const object = chain[Math.floor(at * chain.length)];
    if (object) froms.add(object.header.firstSeq);
  }
  const lastSeq = chain.at(-1)?.header.lastSeq ?? 0;
  froms.add(lastSeq + 1);
  for (const from of [...froms].sort((a, b) => a - b)) {
    if (from < 1) continue;
    const expected: Seen[] = [];
    let keptKeylessAtOrBelow = false;
    for (const object of chain) {
      const position = object.header.position;
      for (const row of object.rows) {
        const keyless = row.key === undefined;
        const kept = position >= covered || (keyless && position >= floor);
        if (keyless && kept && position < covered && row.seq <= from) keptKeylessAtOrBelow = true;
        if (kept && row.seq >= from) expected.push(seen(row));
      }
    }
    const floorError =
      newest !== undefined && floor > 0 && from <= newest.lastSeq && !keptKeylessAtOrBelow;
    // With no manifest verifying, the tail refuses loudly (`newest-export.ts`).
    const allDamaged = newest === undefined && damaged.size > 0;
    const got: Seen[] = [];
    let error: unknown;
    try {
      for await (const row of tailShard(store, shard, { fromSeq: from })) got.push(seen(row));
    } catch (e) {
      error = e;
    }
    const name = `${shard}: tail --from ${from} (newest export covers ${covered}, seq ${newest?.lastSeq ?? 0}, floor ${floor})`;
    if (allDamaged) {
      if (!(error instanceof CorruptDataError))
        fail(`${name}: expected the damaged export's error, got ${describeEnd(error, got.length)}`);
      continue;
    }
    if (floorError) {
      if (!(error instanceof HistoryFloorError))
        fail(`${name}: expected a history floor error, got ${describeEnd(error, got.length)}`);
      continue;
    }
    if (error !== undefined) {
      fail(`${name}: failed: ${(error as Error).name}: ${(error as Error).message}`);
      continue;
    }
    const mismatch = firstMismatch(got, expected);
    if (mismatch !== undefined) fail(`${name}: ${mismatch}`);
  }
}

function describeEnd(error: unknown, rows: number): string {
  return error === undefined
    ? `${rows} rows`
    : `${(error as Error).name}: ${(error as Error).message}`;
}

function firstMismatch(got: readonly Seen[], expected: readonly Seen[]): string | undefined {
  for (let i = 0; i < Math.max(got.length, expected.length); i++) {
    const g = got[i];
    const e = expected[i];
    if (g && e && g.seq === e.seq && g.offset === e.offset && g.text === e.text && g.key === e.key)
      continue;
    if (!g)
      return `stopped after ${got.length} rows; expected seq ${e!.seq} offset ${e!.offset} next`;
    if (!e) return `yielded seq ${g.seq} offset ${g.offset} past the end of the chain`;
    return g.offset < e.offset
      ? `yielded seq ${g.seq} offset ${g.offset} where seq ${e.seq} offset ${e.offset} was due (a repeat or a row not due)`
      : `skipped seq ${e.seq} offset ${e.offset} (yielded seq ${g.seq} offset ${g.offset} instead)`;
  }
  return undefined;
}

/** What a reader run during the schedule yielded, and how it ended. */
export interface ReaderRun {
  name: string;
  shard: string;
  from: number;
  rows: WalRow[];
  error: unknown;
}

/** Runs a tail of `shard` from `from` over `store` (the world's, faults and all). */
export async function runReader(
  store: ObjectStore,
  run: ReaderRun,
  options: { now: () => number; sleep: (ms: number) => Promise<void> },
): Promise<void> {
  try {
    for await (const row of tailShard(store, run.shard, {
      fromSeq: run.from,
      now: options.now,
      sleep: options.sleep,
    })) {
      run.rows.push(row);
    }
  } catch (error) {
    run.error = error;
  }
}

/** V11 for a reader run during the schedule, against the final chain. */
export function checkReaderRun(
  run: ReaderRun,
  chain: readonly WalObject[],
  damagedKeys: ReadonlySet<string>,
  fail: (text: string) => void,
): void {
  const name = `${run.name} (${run.shard} from seq ${run.from})`;
  const error = run.error;
  const refusedDamaged = error instanceof CorruptDataError && damagedKeys.has(error.objectKey);
  if (error !== undefined && !(error instanceof HistoryFloorError) && !refusedDamaged) {
    const kind = error instanceof ShardwalError ? error.kind : 'internal';
    if (kind !== 'unavailable' && kind !== 'not_found') {
      fail(`${name}: failed: ${(error as Error).name}: ${(error as Error).message}`);
      return;
    }
  }
  const byOffset = new Map<number, WalRow>();
  for (const object of chain) for (const row of object.rows) byOffset.set(row.offset, row);
  let lastOffset = -1;
  for (const row of run.rows) {
    const stored = byOffset.get(row.offset);
    if (
      !stored ||
      stored.seq !== row.seq ||
      stored.text !== row.text ||
      stored.key !== row.key ||
      row.seq < run.from
    ) {
      fail(`${name}: yielded seq ${row.seq} offset ${row.offset}, not the chain's row there`);
      return;
    }
    if (row.offset <= lastOffset) {
      fail(`${name}: yielded offset ${row.offset} after ${lastOffset}`);
      return;
    }
    lastOffset = row.offset;
  }
  const last = run.rows.at(-1);
  if (!last) return;
  const yielded = new Set(run.rows.map((row) => row.offset));
  for (const object of chain) {
    for (const row of object.rows) {
      if (row.key !== undefined || row.seq < run.from || row.offset > last.offset) continue;
      if (!yielded.has(row.offset)) {
        fail(`${name}: skipped keyless seq ${row.seq} offset ${row.offset}`);
        return;
      }
    }
  }
}
