/**
 * Column bounds of a data file (the manifest entry's `lower_bounds` and
 * `upper_bounds`, spec fields 125 and 128, in the spec's single-value
 * serialization: a long as 8 bytes little-endian, a string as its UTF-8
 * bytes). A data file records them for `shard`, `offset` and `position`, so
 * query engines and the history reader (`lib/segment/table-reader.ts`) skip
 * files that cannot hold a shard's positions; and its count of rows whose
 * `key` is null (`null_value_counts`, field 110), so history retention
 * (`retain.ts`) skips files that hold no keyless row. A file written before
 * they were recorded has none and is never skipped.
 */
import { FieldId } from './schema.js';

/** A map entry of `lower_bounds` / `upper_bounds`. */
export interface BoundEntry {
  key: number;
  value: Buffer;
}

/** A map entry of `null_value_counts`. */
export interface CountEntry {
  key: number;
  value: number;
}

/** What a data file's bounds say of the rows it may hold. */
export interface FileBounds {
  shard: [string, string];
  position: [number, number];
}

/** Tracks the bounds of the rows added to one file. */
export class ColumnBounds {
  #shardLow = '';
  #shardHigh = '';
  #lows = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY];
  #highs = [Number.NEGATIVE_INFINITY, Number.NEGATIVE_INFINITY];
  #any = false;
  #keyless = 0;

  /** Takes a row's shard, offset, position and whether its key is null. */
  add(shard: string, offset: number, position: number, keyless: boolean): void {
    if (keyless) this.#keyless += 1;
    if (!this.#any) {
      this.#any = true;
      this.#shardLow = shard;
      this.#shardHigh = shard;
    } else if (shard !== this.#shardLow && shard !== this.#shardHigh) {
      if (shard < this.#shardLow) this.#shardLow = shard;
      if (shard > this.#shardHigh) this.#shardHigh = shard;
    }
    const lows = this.#lows;
    const highs = this.#highs;
    if (offset < lows[0]!) lows[0] = offset;
    if (offset > highs[0]!) highs[0] = offset;
    if (position < lows[1]!) lows[1] = position;
    if (position > highs[1]!) highs[1] = position;
  }

  /** The `lower_bounds`, `upper_bounds` and `null_value_counts` of the rows taken (null when none were). */
  entries(): {
    lower: BoundEntry[] | null;
    upper: BoundEntry[] | null;
    nulls: CountEntry[] | null;
  } {
    if (!this.#any) return { lower: null, upper: null, nulls: null };
    const side = (shard: string, values: number[]): BoundEntry[] => [
      { key: FieldId.shard, value: Buffer.from(shard, 'utf8') },
      { key: FieldId.offset, value: longBytes(values[0]!) },
      { key: FieldId.position, value: longBytes(values[1]!) },
    ];
    return {
      lower: side(this.#shardLow, this.#lows),
      upper: side(this.#shardHigh, this.#highs),
      nulls: [{ key: FieldId.key, value: this.#keyless }],
    };
  }
}

function longBytes(value: number): Buffer {
  const out = Buffer.alloc(8);
  out.writeBigInt64LE(BigInt(value));
  return out;
}

/** The shard and position bounds a manifest entry records; undefined when it records none. */
export function fileBounds(
  lower: readonly BoundEntry[] | null | undefined,
  upper: readonly BoundEntry[] | null | undefined,
): FileBounds | undefined {
  const find = (entries: readonly BoundEntry[] | null | undefined, id: number) =>
    entries?.find((entry) => entry.key === id)?.value;
  const shardLow = find(lower, FieldId.shard);
  const shardHigh = find(upper, FieldId.shard);
  const positionLow = find(lower, FieldId.position);
  const positionHigh = find(upper, FieldId.position);
  if (!shardLow || !shardHigh || !positionLow || !positionHigh) return undefined;
  return {
    shard: [Buffer.from(shardLow).toString('utf8'), Buffer.from(shardHigh).toString('utf8')],
    position: [
      Number(Buffer.from(positionLow).readBigInt64LE()),
      Number(Buffer.from(positionHigh).readBigInt64LE()),
    ],
  };
}

/** How many rows of a data file have no key, by its `null_value_counts`; undefined when it records none. */
export function keylessRows(nulls: readonly CountEntry[] | null | undefined): number | undefined {
  const entry = nulls?.find((e) => e.key === FieldId.key);
  return entry === undefined ? undefined : Number(entry.value);
}
