/**
 * An `ObjectStore` on the local filesystem, for the local stack. Keys map to
 * files under a root directory (`shards/a/wal/000…1` → `<root>/shards/a/wal/000…1`).
 *
 * Invariants it keeps:
 * 1. A reader never sees a partial object at a final key: bytes are written
 *    and fsynced to a temp file in the same directory first, then published
 *    with `link(temp, final)`, which is atomic and fails with EEXIST when the
 *    key is taken. That is also what makes create-if-absent atomic, across
 *    processes too, without locks.
 * 2. A crash leaves at most a `.tmp-` file behind; it is never listed and never
 *    blocks a later write (temp names are unique).
 * 3. A `'created'` answer is durable: the file and its directory entry are fsynced.
 * 4. A streamed write (`putStreamIfAbsent`) takes the same path: chunks go to
 *    the temp file as they arrive (memory holds one chunk), and the object
 *    appears at its key only by the final `link`, so an existing object is
 *    never replaced and a stream that fails leaves nothing behind.
 */
import { randomBytes } from 'node:crypto';
import {
  type FileHandle,
  link,
  lstat,
  mkdir,
  open,
  readdir,
  readFile,
  unlink,
} from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { InvalidInputError, UnavailableError } from '../errors.js';
import type { ListOptions, ObjectStore, PutIfAbsentResult } from './object-store.js';

/** File name prefix of in-flight writes; such files are not objects. */
const TEMP_FILE_PREFIX = '.tmp-';

/** An `ObjectStore` rooted at a directory. */
export class FsObjectStore implements ObjectStore {
  readonly #rootDir: string;

  constructor(rootDir: string) {
    this.#rootDir = path.resolve(rootDir);
  }

  /** Create-if-absent via write-temp, fsync, link (see invariant 1). */
  putIfAbsent(key: string, body: Uint8Array): Promise<PutIfAbsentResult> {
    return this.#createIfAbsent(key, 'putIfAbsent', (handle) => writeSynced(handle, [body]));
  }

  /** Create-if-absent of a streamed body: chunks appended to the temp file, then linked (invariant 4). */
  putStreamIfAbsent(key: string, body: AsyncIterable<Uint8Array>): Promise<PutIfAbsentResult> {
    return this.#createIfAbsent(key, 'putStreamIfAbsent', (handle) => writeSynced(handle, body));
  }

  async #createIfAbsent(
    key: string,
    operation: string,
    write: (handle: FileHandle) => Promise<void>,
  ): Promise<PutIfAbsentResult> {
    const file = this.#pathOf(key);
    const dir = path.dirname(file);
    const temp = path.join(
      dir,
      `${TEMP_FILE_PREFIX}${process.pid}-${randomBytes(8).toString('hex')}`,
    );
    let tempLeft = true;
    try {
      await write(await openTemp(dir, temp));
      try {
        await link(temp, file);
      } catch (error) {
        if (codeOf(error) !== 'EEXIST') throw error;
        if ((await lstat(file)).isDirectory()) throw keyClash(key, error);
        return 'exists';
      }
      // The temp name is dropped while the link is made durable: one wait, not two.
      tempLeft = false;
      await Promise.all([fsyncDir(dir), unlink(temp).catch(() => undefined)]);
      return 'created';
    } catch (error) {
      // The body's own failure (a fold that stopped) is the caller's error, not the disk's.
      if (error instanceof BodyError) throw error.cause;
      if (error instanceof InvalidInputError) throw error;
      // A parent segment is an object file: on disk `a/b` cannot be both a file and a directory.
      if (codeOf(error) === 'ENOTDIR' || codeOf(error) === 'EEXIST') throw keyClash(key, error);
      throw unavailable(operation, key, error);
    } finally {
      if (tempLeft) await unlink(temp).catch(() => undefined);
    }
  }

  /** The whole file, or undefined when absent. */
  async get(key: string): Promise<Uint8Array | undefined> {
    const file = this.#pathOf(key);
    try {
      const bytes = await readFile(file);
      return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    } catch (error) {
      if (isAbsent(error)) return undefined;
      throw unavailable('get', key, error);
    }
  }

  /** A stream over the file; opened first so absence is an `undefined`, not a stream error. */
  async getStream(key: string): Promise<Readable | undefined> {
    const file = this.#pathOf(key);
    try {
      const handle = await open(file, 'r');
      return handle.createReadStream();
    } catch (error) {
      if (isAbsent(error)) return undefined;
      throw unavailable('getStream', key, error);
    }
  }

  /** Keys under `prefix`, ascending; walks only the directories the prefix can reach. */
  async *list(prefix: string, options: ListOptions = {}): AsyncIterable<string> {
    // The walk starts at the prefix's directory part; a prefix ending mid-name
    // (`shards/a`) is matched against entry names there.
    const slash = prefix.lastIndexOf('/');
    const base = prefix.slice(0, slash + 1);
    if (base !== '') this.#pathOf(base.slice(0, -1));
    yield* this.#walk(base, prefix, options.startAfter);
  }

  /** Removes the file; absent is fine. */
  async delete(key: string): Promise<void> {
    const file = this.#pathOf(key);
    try {
      await unlink(file);
    } catch (error) {
      if (isAbsent(error)) return;
      throw unavailable('delete', key, error);
    }
  }

  async *#walk(
    base: string,
    prefix: string,
    startAfter: string | undefined,
  ): AsyncIterable<string> {
    let entries: { name: string; isDir: boolean }[];
    try {
      const dirents = await readdir(path.join(this.#rootDir, base), { withFileTypes: true });
      entries = dirents
        .filter((d) => !d.name.startsWith(TEMP_FILE_PREFIX))
        .map((d) => ({ name: d.name, isDir: d.isDirectory() }));
    } catch (error) {
      if (isAbsent(error)) return;
      throw unavailable('list', prefix, error);
    }
    // Every key under directory `x` starts with `x/`, so sorting directories
    // by `name + '/'` makes the depth-first walk yield keys in key order.
    const sortName = (e: { name: string; isDir: boolean }) => (e.isDir ? `${e.name}/` : e.name);
    entries.sort((a, b) => (sortName(a) < sortName(b) ? -1 : 1));
    for (const entry of entries) {
      const candidate = base + sortName(entry);
      if (!candidate.startsWith(prefix) && !(entry.isDir && prefix.startsWith(candidate))) continue;
      if (entry.isDir) {
        // Skip a subtree wholly at or before `startAfter`.
        if (
          startAfter !== undefined &&
          candidate < startAfter &&
          !startAfter.startsWith(candidate)
        ) {
          continue;
        }
        yield* this.#walk(candidate, prefix, startAfter);
      } else if (startAfter === undefined || candidate > startAfter) {
        yield candidate;
      }
    }
  }

  #pathOf(key: string): string {
    assertSafeKey(key);
    return path.join(this.#rootDir, ...key.split('/'));
  }
}

/** Rejects keys that could escape the root or alias another key on disk. */
function assertSafeKey(key: string): void {
  const problem =
    key === ''
      ? 'must not be empty'
      : key.startsWith('/') || path.isAbsolute(key)
        ? 'must be relative'
        : key.includes('\\') || key.includes('\0')
          ? 'must not contain backslashes or NUL'
          : key.split('/').some((s) => s === '' || s === '.' || s === '..')
            ? "must not contain empty, '.' or '..' segments"
            : key.split('/').some((s) => s.startsWith(TEMP_FILE_PREFIX))
              ? `must not contain segments starting with ${TEMP_FILE_PREFIX}`
              : undefined;
  if (problem !== undefined)
    throw new InvalidInputError('key', `${problem}, got ${JSON.stringify(key)}`);
}

/** mkdir -p, fsyncing the parent of each directory it created so the new path survives a crash. */
async function mkdirDurably(dir: string): Promise<void> {
  const first = await mkdir(dir, { recursive: true });
  if (first === undefined) return;
  for (let created = dir; ; created = path.dirname(created)) {
    await fsyncDir(path.dirname(created));
    if (created === first) return;
  }
}

/** Marks an error thrown by the body being written, so it passes through untranslated. */
class BodyError extends Error {
  constructor(override readonly cause: unknown) {
    super('the body stream failed');
  }
}

/**
 * Creates the temp file. The key's directory usually exists (a shard's WAL
 * folder outlives its first object), so it is made only when the open says it
 * is missing: one wait per object instead of a `mkdir` each time.
 */
async function openTemp(dir: string, temp: string): Promise<FileHandle> {
  try {
    return await open(temp, 'wx');
  } catch (error) {
    if (codeOf(error) !== 'ENOENT') throw error;
    await mkdirDurably(dir);
    return open(temp, 'wx');
  }
}

/** Writes the chunks to the new file and fsyncs it before anyone can link it into place; closes it. */
async function writeSynced(
  handle: FileHandle,
  body: Iterable<Uint8Array> | AsyncIterable<Uint8Array>,
): Promise<void> {
  try {
    const iterator = (
      Symbol.asyncIterator in body ? body[Symbol.asyncIterator]() : body[Symbol.iterator]()
    ) as AsyncIterator<Uint8Array> | Iterator<Uint8Array>;
    for (;;) {
      let next: IteratorResult<Uint8Array>;
      try {
        next = await iterator.next();
      } catch (error) {
        throw new BodyError(error);
      }
      if (next.done) break;
      await handle.writeFile(next.value); // writes the whole chunk at the current position
    }
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } catch (error) {
    // Some platforms (Windows) cannot fsync a directory; the data file itself was synced.
    if (!['EINVAL', 'EPERM', 'EISDIR'].includes(codeOf(error) ?? '')) throw error;
  } finally {
    await handle.close();
  }
}

function codeOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** Absent object: no file, a directory in its place (a prefix of other keys), or a parent that is a file. */
function isAbsent(error: unknown): boolean {
  const code = codeOf(error);
  return code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR';
}

/** The filesystem cannot hold a key that is also a path prefix of another key. */
function keyClash(key: string, cause: unknown): InvalidInputError {
  const error = new InvalidInputError(
    'key',
    `${key} clashes with another key's path on disk: ${codeOf(cause)}`,
  );
  error.cause = cause;
  return error;
}

function unavailable(operation: string, key: string, cause: unknown): UnavailableError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new UnavailableError(`fs store: ${operation} ${key}: ${reason}`, { cause });
}
