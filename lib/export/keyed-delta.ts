/**
 * The keyed half of a fold: the newest row or delete of every key changed in
 * the export's WAL range, written as delta parts of the snapshot (or, for a
 * fold from WAL position 0 that fits in one part, as the base itself).
 *
 * Memory: one map entry per key changed since the last spill. Once the rows
 * held pass `spillBytes`, the map is written as the next delta part of the
 * same range and emptied (at an object boundary, so only verified rows are
 * published); later parts of a range win over earlier ones, as later deltas
 * do. So a fold's memory is bounded whatever the range holds.
 */
import type { KeyId } from '../rows/key-id.js';
import { sortByKeyId } from '../rows/key-order.js';
import type { SnapshotEntry, SnapshotPartRef } from '../snapshot/format.js';
import { snapshotLineBytes } from '../snapshot/lines.js';
import { type PartName, SnapshotPartWriter } from '../snapshot/writer.js';
import type { ObjectStore } from '../store/object-store.js';
import type { WalRow } from '../wal/format.js';
import { adoptPart } from './adopt-part.js';

/** Row bytes held before the map spills into a part. */
const SPILL_BYTES = 32 * 1024 * 1024;

/** Per-entry overhead counted against `spillBytes` besides the row and key text. */
const ENTRY_OVERHEAD_BYTES = 96;

/** Settings of a delta. */
export interface DeltaOptions {
  /** The fold's range [from, to). */
  from: number;
  to: number;
  gzipLevel: number;
  spillBytes?: number;
}

/** A key's newest change: its row's text, or undefined for a delete (one shape, updated in place). */
interface Held {
  seq: number;
  offset: number;
  text: string | undefined;
}

/** The keyed changes of one fold. */
export class KeyedDelta {
  readonly parts: SnapshotPartRef[] = [];
  readonly applied = { puts: 0, deletes: 0 };
  written = 0;
  adopted = 0;
  #map = new Map<KeyId, Held>();
  #bytes = 0;
  #lastPosition = -1;
  readonly #spillBytes: number;

  constructor(
    private readonly store: ObjectStore,
    private readonly shard: string,
    private readonly options: DeltaOptions,
  ) {
    this.#spillBytes = options.spillBytes ?? SPILL_BYTES;
  }

  /** Applies a keyed row of the object at `position`; may spill first (a promise then). */
  apply(position: number, row: WalRow): Promise<void> | undefined {
    if (position > this.#lastPosition && this.#bytes >= this.#spillBytes) {
      this.#lastPosition = position;
      return this.#spill().then(() => this.#set(row));
    }
    this.#lastPosition = position;
    this.#set(row);
    return undefined;
  }

  /**
   * Writes what is held. With `asBase` and nothing spilled (a fold from
   * position 0 whose changes fit one part), the map is the whole state and
   * becomes the base, deletes dropped; otherwise it is the next delta part.
   */
  async finish(asBase: boolean): Promise<void> {
    if (asBase && this.parts.length === 0) {
      const live = [...this.#map].filter(([, held]) => held.text !== undefined);
      this.#map = new Map(live);
      if (this.#map.size > 0)
        await this.#write({ kind: 'base', from: 0, to: this.options.to, index: 0 });
      return;
    }
    if (this.#map.size > 0) await this.#spill();
  }

  /**
   * Uncompressed bytes the held changes would take as a part (its `rawBytes`),
   * for the compaction policy to count them without writing them.
   */
  heldRawBytes(): number {
    let bytes = 0;
    for (const [key, { seq, offset, text }] of this.#map) {
      bytes += snapshotLineBytes({ key, seq, offset, text }) + 1; // and its `\n`
    }
    return bytes;
  }

  /** Hands over the held changes in key order (deletes included) and forgets them. */
  takeHeld(): SnapshotEntry[] {
    const entries = sortByKeyId(this.#map);
    this.#map = new Map();
    this.#bytes = 0;
    return entries.map(([key, { seq, offset, text }]) =>
      text === undefined ? { key, seq, offset, delete: true } : { key, seq, offset, text },
    );
  }

  #set(row: WalRow): void {
    const key = row.key!;
    const text = row.delete ? undefined : row.text!;
    if (text === undefined) this.applied.deletes += 1;
    else this.applied.puts += 1;
    const held = this.#map.get(key);
    if (held === undefined) {
      this.#map.set(key, { seq: row.seq, offset: row.offset, text });
      this.#bytes += key.length + ENTRY_OVERHEAD_BYTES + (text?.length ?? 0);
      return;
    }
    this.#bytes += (text?.length ?? 0) - (held.text?.length ?? 0);
    held.seq = row.seq;
    held.offset = row.offset;
    held.text = text;
  }

  async #spill(): Promise<void> {
    const { from, to } = this.options;
    await this.#write({ kind: 'delta', from, to, index: this.parts.length });
  }

  async #write(name: PartName): Promise<void> {
    const entries = this.takeHeld();
    const writer = new SnapshotPartWriter(this.store, this.shard, name, this.options.gzipLevel);
    try {
      for (const entry of entries) {
        const wait = writer.entry(entry);
        if (wait) await wait;
      }
    } catch (error) {
      await writer.abort();
      throw error;
    }
    const { result, ref } = await writer.finish();
    if (result === 'created') this.written += 1;
    else {
      this.parts.push(await adoptPart(this.store, this.shard, ref));
      this.adopted += 1;
      return;
    }
    this.parts.push(ref);
  }
}
