/**
 * Reads a shard's WAL back from the object store and checks it against what
 * the test saw acked: every acked batch exactly once, in seq order, positions,
 * seqs and row offsets contiguous from the start, and the shard record's
 * cursors describing the same prefix. Checks return problems as text so a
 * failure says what broke, not just that something did.
 */
import { expect } from 'vitest';
import type { FlushDeps, FlushOutcome } from '../../lib/flush/flush-shard.js';
import { flushShard } from '../../lib/flush/flush-shard.js';
import { allocateSeq } from '../../lib/memtable/allocate.js';
import type { BatchRow } from '../../lib/memtable/batch-codec.js';
import {
  readShardRecord,
  type ShardRecord,
  updateShardRecord,
} from '../../lib/memtable/shard-record.js';
import { PENDING_PK, type Table } from '../../lib/memtable/table.js';
import { walPrefix } from '../../lib/paths.js';
import { type PutDeps, type PutRequest, putRows } from '../../lib/put/put-rows.js';
import { parsePutValue } from '../../lib/put/schema.js';
import type { ObjectStore } from '../../lib/store/object-store.js';
import { decodeWal } from '../../lib/wal/decode.js';
import type { JsonObject, WalObject } from '../../lib/wal/format.js';
import type { Fixture } from './harness.js';

/** A batch the test saw acked: its seq and the rows it was put with. */
export interface AckedBatch {
  seq: number;
  rows: BatchRow[];
}

/** Every WAL object of `shard`, decoded and verified, in listing (= position) order. */
export async function readWalChain(store: ObjectStore, shard: string): Promise<WalObject[]> {
  const objects: WalObject[] = [];
  for await (const key of store.list(walPrefix(shard))) {
    const bytes = await store.get(key);
    if (!bytes) throw new Error(`${key} listed but not readable`);
    objects.push(decodeWal(key, bytes));
  }
  return objects;
}

function comparable(row: BatchRow): string {
  return JSON.stringify({ key: row.key, delete: row.delete, text: row.text });
}

/** What is wrong with `objects` as the WAL of exactly `acked`; empty when nothing is. */
export function chainProblems(
  objects: readonly WalObject[],
  acked: readonly AckedBatch[],
): string[] {
  const problems: string[] = [];
  let nextSeq = 1;
  let nextOffset = 0;
  const rowsBySeq = new Map<number, BatchRow[]>();
  const voids = new Set<number>();
  objects.forEach((object, index) => {
    const { header } = object;
    const where = `position ${header.position}`;
    if (header.position !== index) problems.push(`object #${index} has ${where}`);
    if (header.firstSeq !== nextSeq) {
      problems.push(`${where} starts at seq ${header.firstSeq}, expected ${nextSeq}`);
    }
    if (header.firstRowOffset !== nextOffset) {
      problems.push(
        `${where} starts at row offset ${header.firstRowOffset}, expected ${nextOffset}`,
      );
    }
    nextSeq = header.lastSeq + 1;
    nextOffset = header.firstRowOffset + header.rowCount;
    for (const seq of header.voidSeqs) voids.add(seq);
    for (const row of object.rows) {
      const list = rowsBySeq.get(row.seq) ?? [];
      list.push(row);
      rowsBySeq.set(row.seq, list);
    }
  });
  const ackedSeqs = new Set<number>();
  for (const batch of acked) {
    if (ackedSeqs.has(batch.seq)) problems.push(`seq ${batch.seq} was acked to two puts`);
    ackedSeqs.add(batch.seq);
    if (batch.seq >= nextSeq) {
      problems.push(`acked seq ${batch.seq} is not in the WAL (it ends at seq ${nextSeq - 1})`);
      continue;
    }
    if (voids.has(batch.seq)) problems.push(`acked seq ${batch.seq} is recorded as void`);
    const got = (rowsBySeq.get(batch.seq) ?? []).map(comparable);
    const want = batch.rows.map(comparable);
    if (JSON.stringify(got) !== JSON.stringify(want)) {
      problems.push(
        `seq ${batch.seq} holds ${got.join(',') || 'nothing'}, expected ${want.join(',')}`,
      );
    }
  }
  for (let seq = 1; seq < nextSeq; seq++) {
    if (!ackedSeqs.has(seq) && !voids.has(seq)) {
      problems.push(`seq ${seq} is in the WAL but was never acked and is not void`);
    }
  }
  return problems;
}

/** What is wrong with `record` as the cursors of a drained shard whose WAL is `objects`. */
export function drainedRecordProblems(
  record: ShardRecord | undefined,
  objects: readonly WalObject[],
): string[] {
  if (!record) return ['no shard record'];
  const last = objects.at(-1)?.header;
  const expected = {
    durableSeq: last?.lastSeq ?? 0,
    nextSeq: (last?.lastSeq ?? 0) + 1,
    walNextPos: objects.length,
    nextRowOffset: last ? last.firstRowOffset + last.rowCount : 0,
    bufferedBytes: 0,
    pending: false,
    poison: undefined as string | undefined,
  };
  const problems: string[] = [];
  for (const [name, want] of Object.entries(expected)) {
    const got = record[name as keyof typeof expected];
    if (got !== want) problems.push(`record.${name} is ${String(got)}, expected ${String(want)}`);
  }
  return problems;
}

/** Asserts the shard is drained and its WAL holds exactly `acked`, in order. */
export async function expectWalHolds(
  store: ObjectStore,
  table: Table,
  shard: string,
  acked: readonly AckedBatch[],
): Promise<WalObject[]> {
  const objects = await readWalChain(store, shard);
  const record = await readShardRecord(table, shard);
  expect([...chainProblems(objects, acked), ...drainedRecordProblems(record, objects)]).toEqual([]);
  return objects;
}

/** Flushes until the shard reports idle; fails on poison or when it does not converge. */
export async function drain(
  deps: FlushDeps,
  shard: string,
  maxRounds = 50,
): Promise<FlushOutcome[]> {
  const outcomes: FlushOutcome[] = [];
  for (let round = 0; round < maxRounds; round++) {
    const outcome = await flushShard(deps, shard);
    outcomes.push(outcome);
    if (outcome.status === 'idle') return outcomes;
    if (outcome.status !== 'flushed') {
      throw new Error(`drain of ${shard} stopped: ${JSON.stringify(outcome)}`);
    }
  }
  throw new Error(`drain of ${shard} did not converge in ${maxRounds} rounds`);
}

/** Puts `rows` (buffered unless told) and returns the acked batch as the WAL should hold it. */
export async function putBatch(
  deps: PutDeps,
  shard: string,
  rows: JsonObject[],
  options: Partial<Pick<PutRequest, 'durability' | 'idempotencyKey'>> & { key?: string } = {},
): Promise<AckedBatch> {
  const body = parsePutValue(
    options.key === undefined ? { rows } : { rows, key: options.key },
    deps.config.maxRowsPerPut,
  );
  const result = await putRows(deps, {
    shard,
    body,
    durability: options.durability ?? 'buffered',
    idempotencyKey: options.idempotencyKey,
  });
  return { seq: result.ack.seq, rows: body.rows };
}

/** A put that allocated a seq of `bytes` on `shard` and wrote nothing (yet): the allocation alone. */
export function allocateOnly(f: Fixture, shard: string, bytes: number) {
  return allocateSeq(f.table, {
    shard,
    bytes,
    nowMs: f.clock.now(),
    maxBufferedBytes: f.config.maxBufferedBytes,
    retryAfterSeconds: 1,
  });
}

/**
 * Puts `shard` back in the pending index with nothing pending and `bufferedBytes`
 * still charged: the record a flusher of the earlier protocol left when it died
 * between its commit and the marker clear (today's commit clears the marker in
 * its own update, C5 in `lib/fence/commit.ts`), and what step 7 still tidies.
 */
export async function leaveStaleMarker(f: Fixture, shard: string, bufferedBytes = 0) {
  const record = await updateShardRecord(
    f.table,
    shard,
    {
      update:
        'SET pendingPk = :pk, pendingShard = :shard, bufferedBytes = :bytes, releasedBytes = chargedBytes - :bytes',
      values: {
        ':pk': { S: PENDING_PK },
        ':shard': { S: shard },
        ':bytes': { N: String(bufferedBytes) },
      },
    },
    'UpdateItem stale marker (test)',
  );
  expect(record?.pending).toBe(true);
}
