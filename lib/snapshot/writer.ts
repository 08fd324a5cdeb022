/**
 * Writes one snapshot part as its entries arrive in ascending key order,
 * streamed to the store create-if-absent, and returns what the manifest
 * records. Entries out of order are a bug (`InternalError`): readers merge
 * parts by key and rely on it.
 */
import { InternalError } from '../errors.js';
import { compareKeyOrders, type KeyOrder, keyOrder } from '../rows/key-order.js';
import { GzipLineUpload } from '../store/gzip-lines.js';
import type { ObjectStore, PutIfAbsentResult } from '../store/object-store.js';
import {
  type PartKind,
  SNAPSHOT_FORMAT_VERSION,
  type SnapshotEntry,
  type SnapshotPartRef,
  snapshotPartKey,
} from './format.js';
import { snapshotLine } from './lines.js';

/** What names a part. */
export interface PartName {
  kind: PartKind;
  from: number;
  to: number;
  index: number;
}

/** A part being written. */
export class SnapshotPartWriter {
  readonly #upload: GzipLineUpload;
  #lastKey: string | undefined;
  /** The last key's sort value, so each key is decoded once (not twice per comparison). */
  #lastOrder: KeyOrder | undefined;
  #deletes = 0;

  constructor(
    store: ObjectStore,
    shard: string,
    readonly name: PartName,
    gzipLevel: number,
  ) {
    this.#upload = new GzipLineUpload(store, snapshotPartKey(shard, name), gzipLevel);
  }

  get key(): string {
    return this.#upload.key;
  }

  /** Appends an entry; keys must strictly ascend. A base takes no deletes. */
  entry(entry: SnapshotEntry): Promise<void> | undefined {
    const order = keyOrder(entry.key);
    if (this.#lastOrder !== undefined && !(compareKeyOrders(order, this.#lastOrder) > 0)) {
      throw new InternalError(`${this.key}: key ${entry.key} after ${this.#lastKey}`);
    }
    if (entry.delete) {
      if (this.name.kind === 'base') throw new InternalError(`${this.key}: a base holds no delete`);
      this.#deletes += 1;
    }
    this.#lastKey = entry.key;
    this.#lastOrder = order;
    return this.#upload.line(snapshotLine(entry));
  }

  /** Completes the part. */
  async finish(): Promise<{ result: PutIfAbsentResult; ref: SnapshotPartRef }> {
    const result = await this.#upload.finish();
    return {
      result,
      ref: {
        v: SNAPSHOT_FORMAT_VERSION,
        ...this.name,
        deletes: this.#deletes,
        ...this.#upload.stats,
      },
    };
  }

  /** Abandons the part: nothing is published. */
  abort(): Promise<void> {
    return this.#upload.abort();
  }
}
