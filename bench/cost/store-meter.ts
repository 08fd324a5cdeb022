/**
 * An object store decorator that counts bytes, by kind of object: what S3
 * would bill as storage (live bytes, and the bytes a delete turns into a
 * noncurrent version in a versioned bucket) and what requests moved.
 * `InstrumentedObjectStore` counts the requests; this counts the bytes, so
 * the benchmark stacks the two: Instrumented(Bytes(Fs)).
 */
import type { Readable } from 'node:stream';
import { SPILL_PREFIX } from '../../lib/paths.js';
import type { ListOptions, ObjectStore, PutIfAbsentResult } from '../../lib/store/object-store.js';

/**
 * Kinds of objects, from their key: WAL objects (`lib/paths.ts`), the
 * export's objects (everything else under a shard's prefix: AOF exports,
 * segments, manifests, snapshots, whatever the export writes), spilled batch
 * payloads (`lib/memtable/spill.ts`), and the rest.
 */
export const ObjectKind = { wal: 'wal', export: 'export', spill: 'spill', other: 'other' } as const;
export type ObjectKind = (typeof ObjectKind)[keyof typeof ObjectKind];

/** The kind of object at `key`. */
export function objectKind(key: string): ObjectKind {
  if (key.startsWith(SPILL_PREFIX)) return ObjectKind.spill;
  if (!key.startsWith('shards/')) return ObjectKind.other;
  return key.includes('/wal/') ? ObjectKind.wal : ObjectKind.export;
}

/** Byte counters of one kind. */
export interface KindBytes {
  /** Objects created (a PUT that found the key taken creates nothing). */
  created: number;
  /** Bytes of the objects created. */
  createdBytes: number;
  /** Bytes of objects deleted: noncurrent versions from then on, in a versioned bucket. */
  deletedBytes: number;
  deleted: number;
  /** Bytes returned by `get` (whole objects; streams count their object's size). */
  readBytes: number;
  /** Objects created from a stream (on S3, past one part, a multipart upload), and their bytes. */
  streamed: number;
  streamedBytes: number;
}

function zero(): KindBytes {
  return {
    created: 0,
    createdBytes: 0,
    deletedBytes: 0,
    deleted: 0,
    readBytes: 0,
    streamed: 0,
    streamedBytes: 0,
  };
}

function zeroBytes(): Record<ObjectKind, KindBytes> {
  return { wal: zero(), export: zero(), spill: zero(), other: zero() };
}

/** Wraps a store, counting bytes by object kind. */
export class ByteMeteredStore implements ObjectStore {
  readonly #inner: ObjectStore;
  readonly #sizes = new Map<string, number>();
  #bytes: Record<ObjectKind, KindBytes> = zeroBytes();

  constructor(inner: ObjectStore) {
    this.#inner = inner;
  }

  /** A snapshot of the counters. */
  bytes(): Record<ObjectKind, KindBytes> {
    return {
      wal: { ...this.#bytes.wal },
      export: { ...this.#bytes.export },
      spill: { ...this.#bytes.spill },
      other: { ...this.#bytes.other },
    };
  }

  /** Live bytes now, by kind. */
  liveBytes(): Record<ObjectKind, number> {
    const live = { wal: 0, export: 0, spill: 0, other: 0 };
    for (const [key, size] of this.#sizes) live[objectKind(key)] += size;
    return live;
  }

  /** Zeroes the counters (live sizes stay known). */
  reset(): void {
    this.#bytes = zeroBytes();
  }

  /** Counts the bytes of an object it creates. */
  async putIfAbsent(key: string, body: Uint8Array): Promise<PutIfAbsentResult> {
    const result = await this.#inner.putIfAbsent(key, body);
    if (result === 'created') {
      const kind = this.#bytes[objectKind(key)];
      kind.created += 1;
      kind.createdBytes += body.length;
      this.#sizes.set(key, body.length);
    }
    return result;
  }

  /** Counts the bytes of a streamed object it creates. */
  async putStreamIfAbsent(
    key: string,
    body: AsyncIterable<Uint8Array>,
  ): Promise<PutIfAbsentResult> {
    let length = 0;
    const counted = (async function* () {
      for await (const chunk of body) {
        length += chunk.byteLength;
        yield chunk;
      }
    })();
    const result = await this.#inner.putStreamIfAbsent(key, counted);
    if (result === 'created') {
      const kind = this.#bytes[objectKind(key)];
      kind.created += 1;
      kind.createdBytes += length;
      kind.streamed += 1;
      kind.streamedBytes += length;
      this.#sizes.set(key, length);
    }
    return result;
  }

  /** Counts the bytes read. */
  async get(key: string): Promise<Uint8Array | undefined> {
    const body = await this.#inner.get(key);
    if (body) this.#bytes[objectKind(key)].readBytes += body.length;
    return body;
  }

  /** Counts the object's size as read (a stream may be left early; S3 bills the request either way). */
  async getStream(key: string): Promise<Readable | undefined> {
    const stream = await this.#inner.getStream(key);
    if (stream) this.#bytes[objectKind(key)].readBytes += this.#sizes.get(key) ?? 0;
    return stream;
  }

  /** Forwarded. */
  list(prefix: string, options?: ListOptions): AsyncIterable<string> {
    return this.#inner.list(prefix, options);
  }

  /** Counts the bytes that become a noncurrent version. */
  async delete(key: string): Promise<void> {
    await this.#inner.delete(key);
    const size = this.#sizes.get(key);
    if (size !== undefined) {
      const kind = this.#bytes[objectKind(key)];
      kind.deleted += 1;
      kind.deletedBytes += size;
      this.#sizes.delete(key);
    }
  }
}
