/** The shard record's cursors as reports show them (before and after). */
import type { ShardRecord } from '../memtable/shard-record.js';

/** A plain snapshot of a shard record's cursors, fence and flags. */
export interface CursorSnapshot {
  nextSeq: number;
  durableSeq: number;
  walNextPos: number;
  nextRowOffset: number;
  bufferedBytes: number;
  epoch: number;
  generation: number;
  aofWatermark: number;
  pending: boolean;
  poison: string | null;
  lease: { owner: string; expiresAtMs: number | null } | null;
}

/** The snapshot of `record`, or null when there is none. */
export function snapshotCursors(record: ShardRecord | undefined): CursorSnapshot | null {
  if (!record) return null;
  return {
    nextSeq: record.nextSeq,
    durableSeq: record.durableSeq,
    walNextPos: record.walNextPos,
    nextRowOffset: record.nextRowOffset,
    bufferedBytes: record.bufferedBytes,
    epoch: record.epoch,
    generation: record.generation,
    aofWatermark: record.aofWatermark,
    pending: record.pending,
    poison: record.poison ?? null,
    lease: record.leaseOwner
      ? { owner: record.leaseOwner, expiresAtMs: record.leaseExpiresAtMs ?? null }
      : null,
  };
}
