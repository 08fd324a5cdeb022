/**
 * The simulation's checker. It reads the history the run recorded and the
 * state it ended in, and states every guarantee as a violation when broken:
 *
 * V1. Every 2xx ack's rows are in the WAL exactly once, at the acked seq,
 *     exactly as sent (keys, deletes and rows).
 * V2. No put's rows appear twice, whatever its answers were: an idempotent
 *     put retried after any non-2xx answer, lost response or crash lands at
 *     most once; a plain put lands at most once.
 * V3. Nothing is in the WAL that no put sent.
 * V4. The chain is whole: positions, seqs (each exactly once, as rows or as
 *     a void) and row offsets contiguous, and the record agrees with it.
 * V5. Liveness: after faults stop, every allocated seq becomes durable within
 *     the bound, the shard ends unpoisoned with nothing buffered.
 * V6. Replaying the newest export and the WAL tail (what rebuild and dump
 *     read: the manifest's snapshot parts and segments, or a legacy export)
 *     gives the same live keys and keyless rows as the whole chain (keyless
 *     rows from the export's history floor on).
 * V7. Buffer accounting (checked during the run, `checkBuffered`): the
 *     charges released never pass `durableSeq`, and everything released
 *     short of it is a void, so `bufferedBytes` is what is really pending.
 * V8-V12 and V14 (issue 20's areas: expiry, the stall refusal, retention,
 * tail readers, quarantine; a slow export's base) are in `lifecycle-checks.ts`; F1 (FIFO order) in
 * `fifo-queue.ts`; V16 (Iceberg tables hold the WAL below their high-water exactly once) in
 * `sim-tables.ts`. With tables, V6 and V11 read routed shards' history from the tables
 * (table segments).
 * V13. A quarantined batch is never lost and never acked durable: each one
 *     holds exactly the rows of one put, whole; that put is not also in the
 *     WAL, was never acked `durable: true`, and is quarantined once. An acked
 *     put is in the WAL or in the quarantine (V1 counts the quarantine).
 * A `durable: true` ack is checked the moment it is given (in the runner).
 */
import { isDeepStrictEqual } from 'node:util';
import {
  type AttributeValue,
  type DynamoDBClient,
  GetItemCommand,
  QueryCommand,
} from '@aws-sdk/client-dynamodb';
import { listRejectedBatches } from '../../lib/memtable/quarantine.js';
import { type ShardRecord, toShardRecord } from '../../lib/memtable/shard-record.js';
import { batchSk, META_SK, shardPk } from '../../lib/memtable/table.js';
import { walKey } from '../../lib/paths.js';
import { parsePutValue } from '../../lib/put/schema.js';
import { replayShard } from '../../lib/recovery/replay.js';
import { type Row, sameRows } from '../../lib/rows/row.js';
import type { ObjectStore } from '../../lib/store/object-store.js';
import { decodeWal } from '../../lib/wal/decode.js';
import type { WalObject, WalRow } from '../../lib/wal/format.js';
import type { MemoryDynamoDB } from '../support/sim-dynamodb/memory-dynamodb.js';
import { checkFifoOrder } from './fifo-queue.js';
import type { History } from './history.js';
import {
  checkPendingExpiry,
  checkQuarantineTtl,
  checkReaderRun,
  checkRetention,
  checkTails,
  type ReaderRun,
} from './lifecycle-checks.js';
import type { CreatedObjects } from './sim-store.js';
import { checkTables, type SimTables } from './sim-tables.js';
import type { Intent } from './workload.js';

/** What the checker reads. */
export interface CheckInput {
  history: History;
  db: MemoryDynamoDB;
  tableName: string;
  created: CreatedObjects;
  store: ObjectStore;
  shards: readonly string[];
  /** The export retention in force (`exportRetentionMs`, or the WAL retention it defaults to). */
  exportRetentionMs: number;
  /** The true wall clock (virtual time on the actors' origin, no skew). */
  clockNow: () => number;
  /** Whether V8 runs during the run (short item lifetimes). */
  expiry: boolean;
  /** Tail readers run during the schedule, checked against the final chain (V11). */
  readers: readonly ReaderRun[];
  /** Exports the run damaged on purpose (readers pass over them, or refuse when none is whole). */
  damagedKeys: ReadonlySet<string>;
  /**
   * Shards whose record the run restored from a backup, and whether the operator's rebuild
   * completed since. `behind`: V7 and V8 are off — the record calls seqs pending that S3
   * holds and whose items expired, and its byte counters rolled back. `rebuilt`: V8 is on
   * again (the rebuild proved the cursors from S3). V7 stays off: A2 (seq order is charge
   * order, `lib/memtable/allocate.ts`) does not hold across a restore — the reissued seqs were
   * charged from the rolled-back counter, below the charge marks of older seqs' items, and the
   * history here maps a charge to a seq, which reissued seqs make ambiguous. The counters are
   * exact again after the shard drains (the drain sets released = charged, nothing buffered),
   * which the final check asserts.
   */
  restored: Map<string, RestorePhase>;
  /** Void seqs V7 has seen per shard (their items may expire and be swept since). */
  voidsSeen: Map<string, Set<number>>;
  /** The schedule's Iceberg tables, when it has them (V16). */
  tables?: SimTables;
}

/** Where a restored shard stands (`CheckInput.restored`). */
type RestorePhase = { phase: 'behind' } | { phase: 'rebuilt' };

/** Margin for clock skew when telling a young export from an old one (V10, V14). */
export const AGE_MARGIN_MS = 500;

/** The shard record's raw item (a backup of it), straight from the table. */
export async function rawRecord(
  db: MemoryDynamoDB,
  tableName: string,
  shard: string,
): Promise<Record<string, AttributeValue> | undefined> {
  const out = await db.send(
    new GetItemCommand({
      TableName: tableName,
      Key: { pk: { S: shardPk(shard) }, sk: { S: META_SK } },
      ConsistentRead: true,
    }),
  );
  return out.Item;
}

/** Reads a shard record straight from the table (no scheduling, no faults). */
export async function peekRecord(
  db: MemoryDynamoDB,
  tableName: string,
  shard: string,
): Promise<ShardRecord | undefined> {
  const out = await db.send(
    new GetItemCommand({
      TableName: tableName,
      Key: { pk: { S: shardPk(shard) }, sk: { S: META_SK } },
      ConsistentRead: true,
    }),
  );
  return out.Item ? toShardRecord(shard, out.Item) : undefined;
}

/** V7, at one moment of the run. */
export async function checkBuffered(input: CheckInput, now: number): Promise<void> {
  const { history, db, tableName } = input;
  for (const shard of input.shards) {
    const record = await peekRecord(db, tableName, shard);
    if (!record) continue;
    // A restored shard: V8 from its rebuild on, V7 once it settled (see `CheckInput.restored`).
    const restored = input.restored.get(shard);
    if (restored?.phase === 'behind') continue;
    if (input.expiry) {
      await checkPendingExpiry(db, tableName, shard, record, input.clockNow(), (text) =>
        history.violation(now, text),
      );
    }
    if (restored) continue; // V7: see `CheckInput.restored`
    const { bufferedBytes, chargedBytes, releasedBytes, durableSeq } = record;
    if (bufferedBytes !== chargedBytes - releasedBytes || bufferedBytes < 0) {
      history.violation(
        now,
        `${shard}: bufferedBytes ${bufferedBytes} != charged ${chargedBytes} - released ${releasedBytes}`,
      );
      continue;
    }
    const allocations = history.allocations.get(shard) ?? new Map();
    let releasedSeq = releasedBytes === 0 ? 0 : undefined;
    for (const a of allocations.values()) if (a.chargeEnd === releasedBytes) releasedSeq = a.seq;
    if (releasedSeq === undefined) {
      history.violation(now, `${shard}: releasedBytes ${releasedBytes} is no allocation's charge`);
      continue;
    }
    if (releasedSeq > durableSeq) {
      history.violation(
        now,
        `${shard}: charges released through seq ${releasedSeq}, beyond durableSeq ${durableSeq}`,
      );
      continue;
    }
    if (releasedSeq < durableSeq) {
      // A void seen once stays one: its item expires by TTL (swept in the run), its meaning not.
      const seen = input.voidsSeen.get(shard) ?? new Set<number>();
      input.voidsSeen.set(shard, seen);
      for (const seq of await voidSeqs(db, tableName, shard, releasedSeq + 1, durableSeq)) {
        seen.add(seq);
      }
      for (let seq = releasedSeq + 1; seq <= durableSeq; seq++) {
        if (!seen.has(seq)) {
          history.violation(
            now,
            `${shard}: seq ${seq} is durable but its charge is still buffered (released through ${releasedSeq})`,
          );
          break;
        }
      }
    }
  }
}

async function voidSeqs(
  db: MemoryDynamoDB,
  tableName: string,
  shard: string,
  fromSeq: number,
  toSeq: number,
): Promise<Set<number>> {
  const out = await db.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :lo AND :hi',
      ExpressionAttributeValues: {
        ':pk': { S: shardPk(shard) },
        ':lo': { S: batchSk(fromSeq) },
        ':hi': { S: batchSk(toSeq) },
      },
      ConsistentRead: true,
    }),
  );
  const seqs = new Set<number>();
  for (const item of out.Items ?? []) {
    if (item.kind?.S === 'void') seqs.add(Number(item.sk!.S!.slice('batch#'.length)));
  }
  return seqs;
}

/** The rows a put of `intent` buffers, exactly as stored (seq and offset aside). */
function expectedRows(intent: Intent): Row[] {
  return parsePutValue(
    intent.keyField === undefined
      ? { rows: intent.rows }
      : { key: intent.keyField, rows: intent.rows },
    intent.rows.length,
  ).rows;
}

/** The put tag a stored row carries (`t`), if any. */
function tagOf(row: WalRow): unknown {
  return row.text === undefined ? undefined : (JSON.parse(row.text) as { t?: unknown }).t;
}

/** V1-V6 over the state the run ended in. */
export async function finalChecks(input: CheckInput, now: number): Promise<void> {
  const { history } = input;
  const fail = (text: string) => history.violation(now, text);
  const seqsOfTag = new Map<string, Set<string>>(); // tag → "shard/seq"
  const rowsAt = new Map<string, WalRow[]>(); // "shard/seq" → rows
  const chains = new Map<string, WalObject[]>();
  for (const shard of input.shards) {
    const record = await peekRecord(input.db, input.tableName, shard);
    if (!record) continue;
    // V5
    if (record.poison) fail(`${shard}: ends poisoned: ${record.poison}`);
    if (record.durableSeq !== record.nextSeq - 1) {
      fail(`${shard}: seqs ${record.durableSeq + 1}..${record.nextSeq - 1} never became durable`);
    }
    // Restored shards too: the drain commit that ends the run zeroes the counters' drift.
    if (record.bufferedBytes !== 0)
      fail(`${shard}: ends with ${record.bufferedBytes} bytes buffered`);
    // V4
    const chain = readChain(input.created, shard, record.walNextPos, fail);
    chains.set(shard, chain);
    let seq = 0;
    let offset = 0;
    for (const object of chain) {
      const { header } = object;
      if (header.firstSeq !== seq + 1)
        fail(`${shard}@${header.position}: starts at seq ${header.firstSeq}, expected ${seq + 1}`);
      if (header.firstRowOffset !== offset)
        fail(
          `${shard}@${header.position}: row offset ${header.firstRowOffset}, expected ${offset}`,
        );
      seq = header.lastSeq;
      offset = header.firstRowOffset + header.rowCount;
      for (const row of object.rows) {
        const at = `${shard}/${row.seq}`;
        rowsAt.set(at, [...(rowsAt.get(at) ?? []), row]);
        const tag = tagOf(row);
        if (typeof tag === 'string') {
          seqsOfTag.set(tag, (seqsOfTag.get(tag) ?? new Set()).add(at));
        } else if (!row.delete) {
          fail(`${at}: a row no put sent: ${row.text}`); // V3
        }
      }
    }
    if (seq !== record.durableSeq)
      fail(`${shard}: chain ends at seq ${seq}, record says ${record.durableSeq}`);
    if (offset !== record.nextRowOffset)
      fail(`${shard}: chain ends at offset ${offset}, record says ${record.nextRowOffset}`);
    await checkReplay(input, shard, chain, fail);
    // V10-V12
    const young = (createdAtMs: number) =>
      createdAtMs > input.clockNow() - input.exportRetentionMs + AGE_MARGIN_MS;
    await checkRetention(input.store, shard, record.walNextPos, young, fail);
    const froms = input.readers.filter((r) => r.shard === shard).map((r) => r.from);
    await checkTails(input.store, shard, chain, froms, input.damagedKeys, fail);
    for (const run of input.readers) {
      if (run.shard === shard) checkReaderRun(run, chain, input.damagedKeys, fail);
    }
    await checkQuarantineTtl(input.db, input.tableName, shard, fail);
  }
  // V16
  if (input.tables) await checkTables(input.store, input.tables, chains, fail);
  // V13
  const quarantined = await checkQuarantine(input, fail);
  // V1-V3
  const known = new Set(history.intents.map((intent) => intent.tag));
  for (const tag of seqsOfTag.keys()) if (!known.has(tag)) fail(`rows tagged ${tag}: no such put`);
  for (const intent of history.intents) {
    const copies = [...(seqsOfTag.get(intent.tag) ?? [])];
    const attempts = history.attemptsOf(intent.id);
    const acks = attempts.flatMap((a) => (a.outcome.kind === 'ack' ? [a.outcome] : []));
    const name = `put ${intent.id} (${intent.transport}${intent.idempotencyKey ? ', idempotent' : ''}) on ${intent.shard}`;
    if (copies.length > 1) fail(`${name}: duplicated at ${copies.join(', ')}`);
    const setAside = quarantined.get(intent.tag);
    if (acks.length > 0 && copies.length === 0 && !setAside)
      fail(`${name}: acked (seq ${acks[0]!.seq}) but neither in the WAL nor quarantined`);
    if (setAside && copies.length > 0)
      fail(`${name}: stored at ${copies.join(', ')} and quarantined at ${setAside.join(', ')}`);
    if (setAside && acks.some((ack) => ack.durable))
      fail(`${name}: acked durable, but its batch was quarantined at ${setAside.join(', ')}`);
    if (setAside && setAside.length > 1) fail(`${name}: quarantined twice: ${setAside.join(', ')}`);
    for (const ack of acks) {
      if (
        ack.seq !== undefined &&
        copies.length === 1 &&
        copies[0] !== `${intent.shard}/${ack.seq}`
      ) {
        fail(`${name}: acked at seq ${ack.seq} but stored at ${copies[0]}`);
      }
    }
    for (const at of copies) {
      if (!sameRows(rowsAt.get(at)!, expectedRows(intent))) {
        fail(`${name}: stored at ${at} with other rows than sent`);
      }
    }
  }
  // F1
  const seqOf = (intent: Intent) => {
    const [at] = seqsOfTag.get(intent.tag) ?? [];
    return at === undefined ? undefined : Number(at.slice(at.indexOf('/') + 1));
  };
  checkFifoOrder(history.intents, seqOf, fail);
}

/**
 * V13: every quarantined batch holds, whole and exactly, the rows of one put that is not in the
 * WAL (checked by the caller with the map returned: tag → "shard/generation/seq" copies).
 */
async function checkQuarantine(
  input: CheckInput,
  fail: (text: string) => void,
): Promise<Map<string, string[]>> {
  const table = { client: input.db as unknown as DynamoDBClient, tableName: input.tableName };
  const byTag = new Map<string, string[]>();
  const intents = new Map(input.history.intents.map((intent) => [intent.tag, intent]));
  for (const shard of input.shards) {
    for (const batch of await listRejectedBatches(table, shard)) {
      const at = `${shard}/${batch.generation}/${batch.seq}`;
      const tags = new Set(batch.rows.map((row) => tagOf({ ...row, seq: 0, offset: 0 } as WalRow)));
      tags.delete(undefined);
      const [tag] = tags;
      const intent = typeof tag === 'string' ? intents.get(tag) : undefined;
      if (tags.size !== 1 || !intent) {
        fail(`quarantined ${at}: rows of ${tags.size} puts (${[...tags].join(', ')})`);
        continue;
      }
      if (intent.shard !== shard || !sameRows(batch.rows, expectedRows(intent))) {
        fail(`quarantined ${at}: not put ${intent.id}'s rows as sent`);
      }
      byTag.set(intent.tag, [...(byTag.get(intent.tag) ?? []), at]);
    }
  }
  return byTag;
}

/** The first version of each WAL object 0..walNextPos-1 (retired ones included). */
function readChain(
  created: CreatedObjects,
  shard: string,
  walNextPos: number,
  fail: (text: string) => void,
): WalObject[] {
  const chain: WalObject[] = [];
  for (let position = 0; position < walNextPos; position++) {
    const key = walKey(shard, position);
    const bytes = created.first.get(key);
    if (!bytes) {
      fail(
        `${shard}: position ${position} is below walNextPos ${walNextPos} but was never written`,
      );
      continue;
    }
    chain.push(decodeWal(key, bytes));
  }
  return chain;
}

/** V6: what rebuild and dump read equals the whole chain folded. */
async function checkReplay(
  input: CheckInput,
  shard: string,
  chain: readonly WalObject[],
  fail: (text: string) => void,
): Promise<void> {
  const replay = await replayShard(input.store, shard, { keepRows: true, keepKeyless: true });
  if (replay.walk.stop.reason !== 'end') {
    fail(`${shard}: replay stopped: ${JSON.stringify(replay.walk.stop)}`);
    return;
  }
  const floor = replay.export?.historyFloor ?? 0;
  const keyed = new Map<string, { seq: number; offset: number; text: unknown }>();
  const keyless: Array<{ seq: number; offset: number; text: unknown }> = [];
  for (const object of chain) {
    for (const row of object.rows) {
      if (row.key === undefined) {
        if (object.header.position >= floor)
          keyless.push({ seq: row.seq, offset: row.offset, text: row.text });
      } else if (row.delete) keyed.delete(row.key);
      else keyed.set(row.key, { seq: row.seq, offset: row.offset, text: row.text });
    }
  }
  const replayedKeyed = new Map(
    [...replay.state.keyed].map(([key, e]) => [
      key,
      { seq: e.seq, offset: e.offset, text: e.text },
    ]),
  );
  if (!isDeepStrictEqual(replayedKeyed, keyed))
    fail(`${shard}: replayed live keys differ from the chain`);
  const replayedKeyless = replay.state.keyless.map((r) => ({
    seq: r.seq,
    offset: r.offset,
    text: r.text,
  }));
  if (!isDeepStrictEqual(replayedKeyless, keyless)) {
    fail(
      `${shard}: replayed keyless rows differ from the chain (${replayedKeyless.length} vs ${keyless.length})`,
    );
  }
}
