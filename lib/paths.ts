/**
 * Object keys of a shard in the bucket. Positions are zero-padded to 20
 * digits so lexicographic listing order is numeric order.
 *
 *   shards/<shard>/wal/<position>   WAL objects, create-if-absent
 *   shards/<shard>/aof/<position>   AOF exports covering WAL positions < <position>
 */
import { InvalidInputError } from './errors.js';

/** Width of a zero-padded position or seq in a key. */
export const POSITION_DIGITS = 20;

/** Shard names: lowercase letters, digits, `-` and `_`, 1 to 64 characters, starting alphanumeric. */
export const SHARD_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** Throws `InvalidInputError` naming `field` unless `name` is a valid shard name. */
export function assertShardName(name: unknown, field = 'shard'): asserts name is string {
  if (typeof name !== 'string' || !SHARD_NAME_PATTERN.test(name)) {
    throw new InvalidInputError(
      field,
      `expected 1-64 characters of a-z, 0-9, '-' or '_' starting with a letter or digit, got ${JSON.stringify(name)}`,
    );
  }
}

/** Zero-pads a non-negative integer to `POSITION_DIGITS`. */
export function padPosition(n: number): string {
  return String(n).padStart(POSITION_DIGITS, '0');
}

/** Prefix of every object of a shard. */
export function shardPrefix(shard: string): string {
  return `shards/${shard}/`;
}

/** Prefix of a shard's WAL objects. */
export function walPrefix(shard: string): string {
  return `shards/${shard}/wal/`;
}

/** Key of the WAL object at `position`. */
export function walKey(shard: string, position: number): string {
  return walPrefix(shard) + padPosition(position);
}

/** Prefix of a shard's AOF exports. */
export function aofPrefix(shard: string): string {
  return `shards/${shard}/aof/`;
}

/** Key of the AOF export covering WAL positions below `coveredPosition`. */
export function aofKey(shard: string, coveredPosition: number): string {
  return aofPrefix(shard) + padPosition(coveredPosition);
}

/** Parses the position out of a WAL or AOF key; undefined when the key is not one. */
export function positionOfKey(key: string): number | undefined {
  const match = /\/(?:wal|aof)\/(\d{20})$/.exec(key);
  return match ? Number(match[1]) : undefined;
}

/**
 * Prefix of spilled batch payloads (`lib/memtable/spill.ts`), outside
 * `shards/` so that one lifecycle rule can expire them all.
 */
export const SPILL_PREFIX = 'spill/';

/**
 * Key of the payload of batch `seq` as put `putId` spilled it; `copy` names a
 * later copy made to outlive the lifecycle rule (a stalled shard's pending batch).
 */
export function spillKey(shard: string, seq: number, putId: string, copy?: number): string {
  const base = `${SPILL_PREFIX}${shard}/${padPosition(seq)}-${putId}`;
  return copy === undefined ? base : `${base}.${copy}`;
}
