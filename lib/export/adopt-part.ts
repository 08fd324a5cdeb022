/**
 * A snapshot part whose upload met `'exists'`: another export (a crashed
 * one, or one racing this one) stored the same key first. Parts are named by
 * their range, kind and index, and a fold of one range is deterministic, so
 * the stored part must hold exactly the lines this one would have: it is read
 * back, its lines checked against what this writer recorded, and adopted
 * (with its own compressed size). Anything else stops the export with an
 * `UnavailableError` naming the part.
 */
import { CorruptDataError, UnavailableError } from '../errors.js';
import { type SnapshotPartRef, snapshotPartKey } from '../snapshot/format.js';
import { readPart } from '../snapshot/reader.js';
import type { ObjectStore } from '../store/object-store.js';

/** The record of the stored part at `ref`'s key, once it proved to hold `ref`'s lines. */
export async function adoptPart(
  store: ObjectStore,
  shard: string,
  ref: SnapshotPartRef,
): Promise<SnapshotPartRef> {
  try {
    const stats = await readPart(store, shard, ref, undefined, 'lines');
    return { ...ref, bytes: stats.bytes };
  } catch (error) {
    if (!(error instanceof CorruptDataError)) throw error;
    throw new UnavailableError(
      `${snapshotPartKey(shard, ref)} was stored by another export and does not hold this export's lines (${error.message}); export stops here`,
      { cause: error },
    );
  }
}
