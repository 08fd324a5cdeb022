/**
 * Reads AOF exports (format v1, docs/aof-format.md) with the WAL's reader
 * rules, because it is the same framing read by the same code
 * (`frame-reader.ts`): an unknown version is an `UnknownFormatVersionError`,
 * an unknown record tag an `UnknownRecordTagError`, and a checksum mismatch,
 * truncation or any broken rule of `aof-check.ts` a `CorruptDataError` naming
 * the object key. Never a skip, never a guess.
 *
 * `readAof` streams (records are provisional until the iteration ends without
 * an error: the checksum is checked at the trailer); `decodeAof` reads a whole
 * object held in memory; `peekAofHeader` returns the header line unverified.
 */
import type { Readable } from 'node:stream';
import { CorruptDataError } from '../errors.js';
import { POSITION_DIGITS } from '../paths.js';
import type { FramedLine } from '../wal/frame-parser.js';
import { readFrame, readFrameSync, scanFrame } from '../wal/frame-reader.js';
import type { Fail } from '../wal/wal-check.js';
import { AofChecker } from './aof-check.js';
import type { AofEntry, AofHeader, AofKeyedRow, AofKeylessRow, AofObject } from './format.js';
import { AOF_FRAME, AofTag, parseHeader, parseKeyed, parseKeyless } from './lines-v1.js';

/** Streams an export from its compressed chunks: the header, keyed rows, then keyless rows. */
export async function* readAof(
  objectKey: string,
  chunks: AsyncIterable<Uint8Array>,
): AsyncGenerator<AofEntry, void, undefined> {
  const decoder = new AofDecoder(objectKey);
  for await (const line of readFrame(objectKey, chunks, AOF_FRAME)) yield decoder.accept(line);
  decoder.finish();
}

/** Where `scanAof` hands an export's entries. */
export interface AofSink {
  header?: (header: AofHeader) => void;
  /** Each keyed row; a returned promise is awaited before the next line (backpressure). */
  keyed: (row: AofKeyedRow) => Promise<void> | undefined | void;
  /** Each keyless row, with the bytes of its line (valid only during the call). */
  keyless: (row: AofKeylessRow, bytes: Buffer) => Promise<void> | undefined | void;
}

/**
 * Streams an export into `sink` without an async hop per record (`scanFrame`):
 * the path export and rebuild take through large exports. Same rules and
 * errors as `readAof`; resolves to the header once the whole export verified.
 */
export async function scanAof(
  objectKey: string,
  chunks: AsyncIterable<Uint8Array>,
  sink: AofSink,
): Promise<AofHeader> {
  const decoder = new AofDecoder(objectKey);
  let header: AofHeader | undefined;
  await scanFrame(objectKey, chunks, AOF_FRAME, (line, bytes) => {
    const entry = decoder.accept(line);
    if (entry.kind === 'header') {
      header = entry.header;
      sink.header?.(entry.header);
    } else if (entry.kind === 'keyed') return sink.keyed(entry.row);
    else return sink.keyless(entry.row, bytes);
    return undefined;
  });
  decoder.finish();
  return header!;
}

/** Decodes and verifies a whole export. */
export function decodeAof(objectKey: string, bytes: Uint8Array): AofObject {
  const decoder = new AofDecoder(objectKey);
  const object: AofObject = { header: undefined as unknown as AofHeader, keyed: [], keyless: [] };
  for (const line of readFrameSync(objectKey, bytes, AOF_FRAME)) {
    const entry = decoder.accept(line);
    if (entry.kind === 'header') object.header = entry.header;
    else if (entry.kind === 'keyed') object.keyed.push(entry.row);
    else object.keyless.push(entry.row);
  }
  decoder.finish();
  return object;
}

/**
 * The header line of an export, read from the start of `stream` (which is
 * destroyed after). Unverified: the checksum covers the whole object. Use it
 * for what a wrong value cannot make unsafe (an age, a progress estimate).
 */
export async function peekAofHeader(objectKey: string, stream: Readable): Promise<AofHeader> {
  try {
    for await (const entry of readAof(objectKey, stream)) {
      if (entry.kind === 'header') return entry.header;
    }
    throw new CorruptDataError(objectKey, 'no header line');
  } finally {
    stream.destroy();
  }
}

const AOF_KEY = new RegExp(`(?:^|/)shards/([^/]+)/aof/(\\d{${POSITION_DIGITS}})$`);

/** Turns framed lines into AOF entries, applying the AOF rules as they come. */
class AofDecoder {
  #checker: AofChecker | undefined;
  readonly #fail: Fail;

  constructor(private readonly objectKey: string) {
    this.#fail = (problem) => {
      throw new CorruptDataError(objectKey, problem);
    };
  }

  accept({ line, tag, fields }: FramedLine): AofEntry {
    if (this.#checker === undefined) {
      const header = parseHeader(fields, this.#fail);
      this.#checker = new AofChecker(header, this.#fail);
      this.#checkKey(header);
      return { kind: 'header', header };
    }
    const where = `line ${line}`;
    if (tag === AofTag.keyed) {
      const row = parseKeyed(fields, where, this.#fail);
      this.#checker.keyed(row, where);
      return { kind: 'keyed', row };
    }
    const row = parseKeyless(fields, where, this.#fail);
    this.#checker.keyless(row, where);
    return { kind: 'keyless', row };
  }

  finish(): void {
    this.#checker!.finish();
  }

  /** An export stored under an AOF key must say the same shard and covered position. */
  #checkKey({ shard, coveredPosition }: AofHeader): void {
    const match = AOF_KEY.exec(this.objectKey);
    if (!match) return;
    if (match[1] !== shard || Number(match[2]) !== coveredPosition) {
      this.#fail(
        `line 1: header says shard ${shard} coveredPosition ${coveredPosition}, but the key says otherwise`,
      );
    }
  }
}
