/**
 * Objects that are gzip'd lines with no framing of their own (segments,
 * snapshot parts): what writes them to the store as a stream, and what reads
 * them back, each keeping the same figures so a reader can check an object
 * against what its writer recorded (in the manifest):
 *
 * - `rows`: lines, each ended by one `\n`;
 * - `rawBytes`: uncompressed bytes, newlines included;
 * - `crc32`: zlib's CRC-32 of those uncompressed bytes;
 * - `bytes`: the stored (compressed) size.
 *
 * The writer compresses batches of lines as gzip members on libuv's thread
 * pool, several at once, while its caller keeps parsing
 * (`gzip-members.ts`), and hands them to `putStreamIfAbsent` in order:
 * memory holds a few batches and what the store holds of one part,
 * whatever the object's size. Its `crc32` is combined from the members'
 * trailers (zlib computes each batch's as it compresses it), and a caller
 * may write a line straight into the batch (`lineRoom`): no string of it.
 */
import { availableParallelism } from 'node:os';
import { pipeline, Readable } from 'node:stream';
import { crc32, createGunzip } from 'node:zlib';
import { CorruptDataError, InternalError } from '../errors.js';
import { crc32Combine } from '../wal/crc32-combine.js';
import { memberTrailer } from '../wal/encode-batches.js';
import { LineSplitter } from '../wal/frame-parser.js';
import { GzipMembers } from './gzip-members.js';
import type { ObjectStore, PutIfAbsentResult } from './object-store.js';

/** What a writer recorded about an object, and what a reader recomputes. */
export interface LineStats {
  rows: number;
  rawBytes: number;
  crc32: number;
  bytes: number;
}

/** Bytes of lines gathered into one gzip member (`gzip-members.ts`). */
export const BATCH_BYTES = 1024 * 1024;
/** Members compressing at once: every core, and at least two so compressing overlaps the caller. */
export const MEMBERS_IN_FLIGHT = Math.max(2, availableParallelism());
const NEWLINE = 0x0a;

/** Thrown into the upload's stream when the writer is abandoned. */
class Abandoned extends Error {
  constructor(key: string) {
    super(`${key}: write abandoned`);
  }
}

/** A gzip'd-lines object being written to the store create-if-absent. */
export class GzipLineUpload {
  readonly #members: GzipMembers;
  readonly #upload: Promise<PutIfAbsentResult>;
  #batch: Buffer = Buffer.allocUnsafe(BATCH_BYTES);
  /** Batches zlib is done with, to take lines again. */
  readonly #spare: Buffer[] = [];
  /** CRC-32 of the batches pushed so far, combined in order from their members' trailers. */
  #crc: Promise<number> = Promise.resolve(0);
  #used = 0;
  #failure: unknown;
  #state: 'open' | 'done' = 'open';
  readonly stats: LineStats = { rows: 0, rawBytes: 0, crc32: 0, bytes: 0 };

  constructor(
    store: ObjectStore,
    readonly key: string,
    level: number,
  ) {
    this.#members = new GzipMembers(level, MEMBERS_IN_FLIGHT);
    this.#upload = store.putStreamIfAbsent(key, this.#compressed());
    // A store that gives up early (a refused request) must stop the writer, not strand it.
    this.#upload.catch((error: unknown) => {
      this.#failure ??= error;
      // So a write waiting for room wakes up and rejects.
      this.#members.fail(error instanceof Error ? error : new Error(String(error)));
    });
  }

  /** Adds `text` and a `\n`. Returns a promise only when the caller must wait. */
  line(text: string): Promise<void> | undefined {
    // A UTF-16 code unit takes at most 3 UTF-8 bytes: when that bound fits, write without measuring first.
    if (this.#used + text.length * 3 + 1 <= this.#batch.length && this.#state === 'open') {
      if (this.#failure !== undefined) throw this.#failure;
      const written = this.#batch.write(text, this.#used, 'utf8');
      this.#batch[this.#used + written] = NEWLINE;
      this.#count(written + 1);
      return undefined;
    }
    const length = Buffer.byteLength(text) + 1;
    const wait = this.#room(length);
    if (wait) return wait.then(() => this.line(text));
    this.#batch.write(text, this.#used, 'utf8');
    this.#batch[this.#used + length - 1] = NEWLINE;
    this.#count(length);
    return undefined;
  }

  /**
   * The batch to write the next line into directly, from `lineStart`, when
   * `maxBytes` (the line and its `\n`) surely fit; undefined when they may not
   * (then `line` takes it). The caller writes the line and ends it with
   * `endLine`, before anything else is added: one copy of the bytes, no string
   * of the whole line.
   */
  lineRoom(maxBytes: number): Buffer | undefined {
    if (this.#used + maxBytes > this.#batch.length || this.#state !== 'open') return undefined;
    if (this.#failure !== undefined) throw this.#failure;
    return this.#batch;
  }

  /** Where the next line starts in `lineRoom`'s batch. */
  get lineStart(): number {
    return this.#used;
  }

  /** Ends the line written into `lineRoom`'s batch from `lineStart` up to `end` (exclusive): adds its `\n`. */
  endLine(end: number): void {
    this.#batch[end] = NEWLINE;
    this.#count(end + 1 - this.#used);
  }

  /** Completes the object: resolves to the store's answer (`'exists'`: another writer's is there). */
  async finish(): Promise<PutIfAbsentResult> {
    this.#expectOpen();
    this.#state = 'done';
    await this.#flush();
    this.#members.end();
    try {
      const result = await this.#upload;
      this.stats.crc32 = await this.#crc;
      return result;
    } catch (error) {
      throw this.#failure ?? error;
    }
  }

  /** Abandons the object: nothing is published; resolves once the store has let go. */
  async abort(): Promise<void> {
    if (this.#state === 'done' && this.#failure === undefined) return;
    this.#state = 'done';
    this.#members.fail(new Abandoned(this.key));
    await this.#upload.catch(() => undefined);
  }

  async *#compressed(): AsyncGenerator<Uint8Array> {
    for await (const member of this.#members.members()) {
      this.stats.bytes += member.length;
      yield member;
    }
  }

  #count(length: number): void {
    // The CRC comes from each batch's gzip member (zlib computes it as it compresses).
    this.stats.rawBytes += length;
    this.stats.rows += 1;
    this.#used += length;
  }

  /** Makes room for `length` bytes in the batch; a promise when the members in flight must drain first. */
  #room(length: number): Promise<void> | undefined {
    this.#expectOpen();
    if (this.#failure !== undefined) throw this.#failure;
    if (this.#used + length <= this.#batch.length) return undefined;
    if (length > BATCH_BYTES && this.#used === 0) {
      this.#batch = Buffer.allocUnsafe(length); // one line larger than a batch
      return undefined;
    }
    return this.#flush();
  }

  async #flush(): Promise<void> {
    if (this.#failure !== undefined) throw this.#failure;
    if (this.#used === 0) return;
    try {
      await this.#members.room();
    } catch (error) {
      throw this.#failure ?? error;
    }
    const batch = this.#batch;
    const length = this.#used;
    const made = this.#members.push(batch.subarray(0, length));
    // zlib reads the batch until its member is made; then it takes the next batch's lines
    // (a few buffers recycled: allocating a megabyte per batch made the GC run more often).
    void made.then(() => {
      if (batch.length === BATCH_BYTES) this.#spare.push(batch);
    });
    this.#crc = Promise.all([this.#crc, made]).then(([crc, member]) =>
      member === undefined ? crc : combineMember(this.key, crc, member, length),
    );
    this.#crc.catch(() => undefined); // surfaced by `finish`
    this.#batch = this.#spare.pop() ?? Buffer.allocUnsafe(BATCH_BYTES);
    this.#used = 0;
  }

  #expectOpen(): void {
    if (this.#state !== 'open') throw new InternalError(`${this.key}: writer already finished`);
  }
}

/**
 * `crc` (of the text before a batch) extended by the batch of `length` bytes
 * compressed as `member`: zlib's CRC-32 of the batch is in the member's
 * trailer, so the writer never runs a CRC of its own over the text.
 */
function combineMember(key: string, crc: number, member: Buffer, length: number): number {
  const trailer = memberTrailer(member);
  if (trailer === undefined || trailer.bytes !== length % 2 ** 32) {
    throw new InternalError(`${key}: a gzip member does not end with its batch's length`);
  }
  return crc32Combine(crc, trailer.crc32, length);
}

/**
 * Reads a gzip'd-lines object, handing each line (without its `\n`, valid
 * only during the call) to `onLine`, and resolves to the figures it saw.
 * Damaged gzip, bytes after the gzip stream or a last line without its `\n`
 * are `CorruptDataError`s naming the key; the caller compares the figures
 * with what the manifest recorded.
 */
export async function readGzipLines(
  objectKey: string,
  chunks: AsyncIterable<Uint8Array>,
  onLine: (bytes: Buffer, index: number) => Promise<void> | undefined | void,
): Promise<LineStats> {
  const stats: LineStats = { rows: 0, rawBytes: 0, crc32: 0, bytes: 0 };
  async function* counted(): AsyncGenerator<Uint8Array> {
    for await (const chunk of chunks) {
      stats.bytes += chunk.byteLength;
      yield chunk;
    }
  }
  const gunzip = createGunzip({ chunkSize: 256 * 1024 });
  let gunzipError: unknown;
  gunzip.once('error', (error) => {
    gunzipError = error;
  });
  pipeline(Readable.from(counted()), gunzip, () => {}); // errors surface through the iteration
  const splitter = new LineSplitter();
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      stats.crc32 = crc32(chunk, stats.crc32);
      stats.rawBytes += chunk.length;
      for (const line of splitter.push(chunk)) {
        const wait = onLine(line, stats.rows++);
        if (wait) await wait;
      }
    }
  } catch (error) {
    if (error === gunzipError) {
      throw new CorruptDataError(
        objectKey,
        `not a valid gzip stream: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
    throw error;
  } finally {
    gunzip.destroy();
  }
  if (gunzip.bytesWritten !== stats.bytes) {
    throw new CorruptDataError(
      objectKey,
      `${stats.bytes - gunzip.bytesWritten} bytes follow the end of the gzip stream`,
    );
  }
  if (splitter.pendingBytes > 0) {
    throw new CorruptDataError(objectKey, 'truncated: the last line has no terminating newline');
  }
  return stats;
}

/** A line of a listed object as text; `fail` throws a `CorruptDataError` naming the object and the line. */
export type ListedLineHandler = (
  text: string,
  bytes: Buffer,
  index: number,
  fail: (problem: string) => never,
) => Promise<void> | undefined | void;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads the object at `objectKey` that a manifest lists (segment, snapshot
 * part): missing is corrupt, each line must be valid UTF-8, and the stream is
 * closed however the read ends. Resolves to the figures `readGzipLines` saw.
 */
export async function readListedLines(
  store: ObjectStore,
  objectKey: string,
  onLine: ListedLineHandler,
): Promise<LineStats> {
  const stream = await store.getStream(objectKey);
  if (!stream) throw new CorruptDataError(objectKey, 'missing: the manifest lists it');
  try {
    return await readGzipLines(objectKey, stream, (bytes, index) => {
      const fail = (problem: string): never => {
        throw new CorruptDataError(objectKey, `line ${index + 1}: ${problem}`);
      };
      let text: string;
      try {
        text = utf8.decode(bytes);
      } catch {
        return fail('not valid UTF-8');
      }
      return onLine(text, bytes, index, fail);
    });
  } finally {
    stream.destroy();
  }
}

/** What a comparison looks at: every figure, or the lines only (another gzip level may store them smaller). */
export type Compared = 'all' | 'lines';

/** The first figure where `actual` differs from `recorded`, as a message; undefined when they agree. */
export function statsMismatch(
  recorded: LineStats,
  actual: LineStats,
  compared: Compared = 'all',
): string | undefined {
  const names =
    compared === 'all'
      ? (['bytes', 'rawBytes', 'rows', 'crc32'] as const)
      : (['rawBytes', 'rows', 'crc32'] as const);
  for (const name of names) {
    if (recorded[name] !== actual[name]) {
      return `the manifest records ${name} ${recorded[name]}, the object has ${actual[name]}`;
    }
  }
  return undefined;
}
