/**
 * Reads WAL objects (formats v1-v3, docs/wal-format.md) and fails loud: every
 * violation is a `CorruptDataError` naming the object key (an unknown version
 * or record tag its typed subclass), never a skip or a guess. `decodeWal`
 * reads a whole object; `readWal` streams one. Both apply the framing rules
 * (`frame-parser.ts`) and the WAL rules (`wal-check.ts`) line by line in the
 * same order, so they accept the same objects and report the same first fault.
 */
import { CorruptDataError, UnknownRecordTagError } from '../errors.js';
import { POSITION_DIGITS } from '../paths.js';
import { BatchFrames } from './batch-frames.js';
import { readCanonicalRow } from './canonical-row.js';
import type { WalHeader, WalObject, WalRow } from './format.js';
import type { FramedLine } from './frame-parser.js';
import { readFrame, scanFrameSync } from './frame-reader.js';
import { FRAMED_BATCHES_VERSION, parseHeader, parseRow, WAL_FRAME, WalTag } from './lines-v1.js';
import { type Fail, WalChecker } from './wal-check.js';

/** One item of a streamed WAL object: the header first, then each row. */
export type WalEntry = { kind: 'header'; header: WalHeader } | { kind: 'row'; row: WalRow };

/** Options of `decodeWal`. */
export interface DecodeOptions {
  /** False: v3 rows come without `ingestedAtMs` (for a reader that yields none). Default true. */
  ingestedAt?: boolean;
}

/**
 * Decodes and verifies a whole WAL object. Row lines in the encoder's exact
 * form are read straight from their bytes (`canonical-row.ts`), every other
 * line through the generic parse: the same rules either way.
 */
export function decodeWal(
  objectKey: string,
  bytes: Uint8Array,
  options: DecodeOptions = {},
): WalObject {
  const decoder = new WalDecoder(objectKey, options.ingestedAt ?? true);
  let header: WalHeader | undefined;
  const rows: WalRow[] = [];
  scanFrameSync<WalRow>(objectKey, bytes, WAL_FRAME, {
    canonical: (text, start, end, ascii) => decoder.canonical(text, start, end, ascii),
    line: (line) => {
      const entry = decoder.accept(line);
      if (entry?.kind === 'header') header = entry.header;
      else if (entry !== undefined) rows.push(entry.row);
    },
    record: (row, line) => {
      rows.push(decoder.record(row, line));
    },
  });
  decoder.finish();
  return { header: header!, rows };
}

/**
 * The header of a WAL object. The whole object is verified first: a header is
 * only trusted once the checksum over it and its rows holds.
 */
export function decodeWalHeader(objectKey: string, bytes: Uint8Array): WalHeader {
  return decodeWal(objectKey, bytes).header;
}

/**
 * Streams a WAL object from its compressed chunks, yielding the header and then
 * each row. Rows are provisional until the iteration ends without an error:
 * the checksum covers them all and is checked at the trailer.
 */
export async function* readWal(
  objectKey: string,
  chunks: AsyncIterable<Uint8Array>,
): AsyncGenerator<WalEntry, void, undefined> {
  const decoder = new WalDecoder(objectKey);
  for await (const line of readFrame(objectKey, chunks, WAL_FRAME)) {
    const entry = decoder.accept(line);
    if (entry !== undefined) yield entry;
  }
  decoder.finish();
}

/** A batch frame in an object older than v3: the tag is not in its version's set. */
export function unframedTag(objectKey: string, line: number): UnknownRecordTagError {
  return new UnknownRecordTagError(objectKey, line, WalTag.batch, ['h', WalTag.row, 'e']);
}

const WAL_KEY = new RegExp(`(?:^|/)shards/([^/]+)/wal/(\\d{${POSITION_DIGITS}})$`);

/** Turns framed lines into WAL entries, applying the WAL rules as they come. */
class WalDecoder {
  #checker: WalChecker | undefined;
  /** Set for v3 objects, whose rows take seq and offset from their batch frame. */
  #frames: BatchFrames | undefined;
  readonly #fail: Fail;

  constructor(
    private readonly objectKey: string,
    private readonly ingestedAt = true,
  ) {
    this.#fail = (problem) => {
      throw new CorruptDataError(objectKey, problem);
    };
  }

  accept({ line, tag, fields }: FramedLine): WalEntry | undefined {
    if (this.#checker === undefined) {
      const header = parseHeader(fields, this.#fail);
      this.#checker = new WalChecker(header, this.#fail);
      if ((fields.v as number) >= FRAMED_BATCHES_VERSION) {
        this.#frames = new BatchFrames(header, this.#fail, this.ingestedAt);
      }
      this.#checkKey(header);
      return { kind: 'header', header };
    }
    const where = `line ${line}`;
    if (tag === WalTag.batch) {
      if (this.#frames === undefined) throw unframedTag(this.objectKey, line);
      this.#frames.frame(fields, where);
      return undefined;
    }
    const row = parseRow(fields, where, this.#fail, this.#frames !== undefined);
    this.#frames?.place(row, line);
    this.#checker.row(row, line);
    return { kind: 'row', row };
  }

  /** A row line the canonical reader took (line 1, the header, came first). */
  canonical(bytes: Buffer, start: number, end: number, ascii: boolean): WalRow | undefined {
    return readCanonicalRow(bytes, start, end, ascii, this.#frames !== undefined);
  }

  /** Checks a row `canonical` read, at line `line`, as `accept` checks a parsed one. */
  record(row: WalRow, line: number): WalRow {
    this.#frames?.place(row, line);
    this.#checker!.row(row, line);
    return row;
  }

  finish(): void {
    this.#frames?.finish();
    this.#checker!.finish();
  }

  /** An object stored under a WAL key must say the same shard and position (a misplaced object breaks the chain). */
  #checkKey({ shard, position }: WalHeader): void {
    const match = WAL_KEY.exec(this.objectKey);
    if (!match) return;
    if (match[1] !== shard || Number(match[2]) !== position) {
      this.#fail(
        `line 1: header says shard ${shard} position ${position}, but the key says otherwise`,
      );
    }
  }
}
