/**
 * Shared by the recovery and export tests: a shard driven through the real
 * put and flush paths, a model of what its acked puts should leave (the
 * "live" state), and comparable snapshots of replayed state.
 */
import { gzipSync } from 'node:zlib';
import type { ExportDeps } from '../../lib/export/deps.js';
import { type FlushOutcome, flushShard } from '../../lib/flush/flush-shard.js';
import { voidLifetimeMs } from '../../lib/liveness.js';
import type { BatchRow } from '../../lib/memtable/batch-codec.js';
import { type PutRequest, putRows } from '../../lib/put/put-rows.js';
import { parsePutValue } from '../../lib/put/schema.js';
import type { RecoveryDeps } from '../../lib/recovery/deps.js';
import type { ShardState } from '../../lib/recovery/shard-state.js';
import { encodeWal } from '../../lib/wal/encode.js';
import type { WalObject } from '../../lib/wal/format.js';
import type { Fixture } from '../support/harness.js';

/** A row as the state comparisons see it. */
export interface ModelRow {
  seq: number;
  offset: number;
  /** The row's text as stored. */
  text: string;
}

/** Comparable state: keyed rows by ascending key, keyless rows in offset order. */
export interface Snapshot {
  keyed: Array<[string, ModelRow]>;
  keyless: ModelRow[];
}

/** The fold of every acked put, in seq order: what the shard should hold. */
class LiveModel {
  readonly keyed = new Map<string, ModelRow>();
  readonly keyless: ModelRow[] = [];
  #nextOffset = 0;

  /** Applies batch `seq` (seqs must arrive ascending, as sequential puts ack them). */
  apply(seq: number, rows: readonly BatchRow[]): void {
    for (const row of rows) {
      const offset = this.#nextOffset++;
      if (row.key === undefined) this.keyless.push({ seq, offset, text: row.text! });
      else if (row.delete) this.keyed.delete(row.key);
      else this.keyed.set(row.key, { seq, offset, text: row.text! });
    }
  }

  snapshot(): Snapshot {
    return { keyed: sortedEntries(this.keyed), keyless: [...this.keyless] };
  }
}

/** A replayed state as a snapshot (it must have kept rows and keyless rows). */
export function snapshotOf(state: ShardState): Snapshot {
  const keyed = new Map<string, ModelRow>();
  for (const [key, entry] of state.keyed)
    keyed.set(key, { seq: entry.seq, offset: entry.offset, text: entry.text! });
  return { keyed: sortedEntries(keyed), keyless: state.keyless.map((r) => ({ ...r })) };
}

function sortedEntries(map: Map<string, ModelRow>): Array<[string, ModelRow]> {
  return [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** A shard under test: puts go through the put path and into the model. */
export class TestShard {
  readonly model = new LiveModel();

  constructor(
    readonly f: Fixture,
    readonly shard = 's1',
  ) {}

  /** Puts keyed rows `{id, ...}` (a `$delete: true` row deletes its id). */
  async keyed(rows: Array<Record<string, unknown>>): Promise<number> {
    return this.put({ key: 'id', rows });
  }

  /** Puts keyless rows. */
  async keyless(rows: Array<Record<string, unknown>>): Promise<number> {
    return this.put({ rows });
  }

  async put(body: { key?: string; rows: Array<Record<string, unknown>> }): Promise<number> {
    const parsed = parsePutValue(body, this.f.config.maxRowsPerPut);
    const request: PutRequest = { shard: this.shard, body: parsed, durability: 'buffered' };
    const { ack } = await putRows(this.f.put, request);
    this.model.apply(ack.seq, parsed.rows);
    return ack.seq;
  }

  /** Flushes until nothing is pending (one WAL object per flush). */
  async flush(owner = 'flusher'): Promise<FlushOutcome[]> {
    const outcomes: FlushOutcome[] = [];
    for (;;) {
      const outcome = await flushShard(this.f.flushDeps(owner), this.shard);
      outcomes.push(outcome);
      if (outcome.status !== 'flushed' || !outcome.more) return outcomes;
    }
  }
}

/** Recovery dependencies on the fixture's table, store and clock. */
export function recoveryDepsOf(f: Fixture, owner = 'test-recovery'): RecoveryDeps {
  return {
    table: f.table,
    store: f.store,
    now: f.clock.now,
    gapSealMs: f.config.gapSealMs,
    leaseMs: f.config.leaseMs,
    voidLifetimeMs: voidLifetimeMs(f.config),
    owner,
  };
}

/** Export dependencies on the fixture's table, store and clock. */
export function exportDepsOf(f: Fixture, overrides: Partial<ExportDeps> = {}): ExportDeps {
  return {
    table: f.table,
    store: f.store,
    now: f.clock.now,
    walRetentionMs: f.config.walRetentionMs,
    exportRetentionMs: f.config.exportRetentionMs,
    historyRetentionMs: f.config.historyRetentionMs,
    clockSkewMs: f.config.clockSkewMs,
    ...overrides,
  };
}

/** Replaces the object at `key` in the fixture's memory store (tests only: the port never overwrites). */
export async function overwrite(f: Fixture, key: string, bytes: Uint8Array): Promise<void> {
  await f.memory.delete(key);
  await f.memory.putIfAbsent(key, bytes);
}

/** A WAL object re-encoded with `edit` applied (still valid, different content). */
export function rewritten(object: WalObject, edit: (object: WalObject) => void): Uint8Array {
  const copy = structuredClone(object);
  edit(copy);
  return encodeWal(copy);
}

/** The object's uncompressed text with `v` replaced: a well-formed object of another version. */
export function withVersion(
  bytes: Uint8Array,
  version: number,
  gunzip: (b: Uint8Array) => Buffer,
): Uint8Array {
  const text = gunzip(bytes)
    .toString('utf8')
    .replace(/"v":\d+,/, `"v":${version},`);
  return gzipSync(Buffer.from(text, 'utf8'));
}
