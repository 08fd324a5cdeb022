/**
 * The object store as the simulation sees it: every request parks in the
 * world first (so the scheduler orders it, delays it, or kills its caller),
 * and a create-if-absent write parks again after it landed (a caller killed
 * there wrote the object but never learned it). Every object ever created is
 * remembered in its first version, so the checker can read positions that
 * retention retired since.
 */
import type { Readable } from 'node:stream';
import type { ListOptions, ObjectStore, PutIfAbsentResult } from '../../lib/store/object-store.js';
import type { World } from './world.js';

/** First version of every key ever created. */
export class CreatedObjects {
  readonly first = new Map<string, Uint8Array>();
}

/** Records creations on the way to the inner store (below the fault layer). */
export class RecordingStore implements ObjectStore {
  constructor(
    private readonly inner: ObjectStore,
    private readonly created: CreatedObjects,
  ) {}

  async putIfAbsent(key: string, body: Uint8Array): Promise<PutIfAbsentResult> {
    const result = await this.inner.putIfAbsent(key, body);
    if (result === 'created' && !this.created.first.has(key)) {
      this.created.first.set(key, Uint8Array.from(body));
    }
    return result;
  }
  async putStreamIfAbsent(
    key: string,
    body: AsyncIterable<Uint8Array>,
  ): Promise<PutIfAbsentResult> {
    const chunks: Uint8Array[] = [];
    const recorded = (async function* () {
      for await (const chunk of body) {
        chunks.push(Uint8Array.from(chunk));
        yield chunk;
      }
    })();
    const result = await this.inner.putStreamIfAbsent(key, recorded);
    if (result === 'created' && !this.created.first.has(key)) {
      this.created.first.set(key, Buffer.concat(chunks));
    }
    return result;
  }
  get(key: string): Promise<Uint8Array | undefined> {
    return this.inner.get(key);
  }
  getStream(key: string): Promise<Readable | undefined> {
    return this.inner.getStream(key);
  }
  list(prefix: string, options?: ListOptions): AsyncIterable<string> {
    return this.inner.list(prefix, options);
  }
  delete(key: string): Promise<void> {
    return this.inner.delete(key);
  }
}

/** Parks each request in the world before it reaches `inner`. */
export class SimStore implements ObjectStore {
  constructor(
    private readonly world: World,
    private readonly inner: ObjectStore,
  ) {}

  async putIfAbsent(key: string, body: Uint8Array): Promise<PutIfAbsentResult> {
    await this.world.park(`s3 put ${short(key)}`);
    try {
      return await this.inner.putIfAbsent(key, body);
    } finally {
      await this.world.park(`s3 put-done ${short(key)}`, 0);
    }
  }
  async putStreamIfAbsent(
    key: string,
    body: AsyncIterable<Uint8Array>,
  ): Promise<PutIfAbsentResult> {
    await this.world.park(`s3 put-stream ${short(key)}`);
    try {
      return await this.inner.putStreamIfAbsent(key, body);
    } finally {
      await this.world.park(`s3 put-stream-done ${short(key)}`, 0);
    }
  }
  async get(key: string): Promise<Uint8Array | undefined> {
    await this.world.park(`s3 get ${short(key)}`);
    return this.inner.get(key);
  }
  async getStream(key: string): Promise<Readable | undefined> {
    await this.world.park(`s3 get ${short(key)}`);
    return this.inner.getStream(key);
  }
  async *list(prefix: string, options?: ListOptions): AsyncIterable<string> {
    await this.world.park(`s3 list ${short(prefix)}`);
    yield* this.inner.list(prefix, options);
  }
  async delete(key: string): Promise<void> {
    await this.world.park(`s3 delete ${short(key)}`);
    return this.inner.delete(key);
  }
}

function short(key: string): string {
  return key.replace(/^shards\//, '').replace(/0{10,}(\d)/, '…$1');
}
