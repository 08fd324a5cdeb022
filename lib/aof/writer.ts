/**
 * Writes an AOF export (format v1, docs/aof-format.md) while the shard is
 * folded, without holding its uncompressed rows.
 *
 * The file is header, keyed records, keyless records, trailer. The header
 * carries counts only known at the end, and keyless rows stream in while
 * the fold runs, so the writer builds two gzip members:
 *   member 2: keyless records as they arrive, then the trailer;
 *   member 1: header and keyed records, written at `finish`.
 * The bytes are member 1 ‖ member 2: one gzip file whose uncompressed text is
 * exactly what `encodeFrame` would produce for the same records (the tests
 * prove it), read by the shared frame reader. The trailer's CRC runs over the
 * file's order, so it is combined from the two members' CRCs.
 *
 * Memory held: the compressed bytes of both members (the object store port
 * takes one body), plus what the caller keeps for the keyed section.
 */
import { InternalError } from '../errors.js';
import { compareKeyIds } from '../rows/key-id.js';
import { stringifyLine } from '../rows/raw-json.js';
import { FRAME_GZIP_LEVEL, FrameTag } from '../wal/framing.js';
import { crc32Combine } from './crc32-combine.js';
import {
  AOF_FORMAT_VERSION,
  AOF_MAGIC,
  type AofHeader,
  type AofKeyedRow,
  type AofKeylessRow,
} from './format.js';
import { GzipSection } from './gzip-section.js';
import { AofTag, headerFields, keyedFields, keylessFields } from './lines-v1.js';

/** The header of the export being written, without the keyless count the writer keeps. */
export type AofHeaderInput = Omit<AofHeader, 'keylessCount'>;

/** Streams keyless rows into an export; `finish` adds the header and keyed rows. */
export class AofWriter {
  readonly #keylessSection: GzipSection;
  #keyless = 0;
  #lastOffset = -1;
  #state: 'open' | 'done' = 'open';

  constructor(
    readonly objectKey: string,
    readonly level: number = FRAME_GZIP_LEVEL,
  ) {
    this.#keylessSection = new GzipSection(level);
  }

  /** Keyless rows written so far. */
  get keylessCount(): number {
    return this.#keyless;
  }

  /** Compressed bytes of the keyless section so far. */
  get compressedBytes(): number {
    return this.#keylessSection.compressedBytes;
  }

  /** Appends a keyless row; offsets must ascend. Returns a promise only when the caller must wait. */
  keyless(row: AofKeylessRow): Promise<void> | undefined {
    this.#expectOpen();
    if (!(row.offset > this.#lastOffset)) {
      throw new InternalError(
        `${this.objectKey}: keyless offset ${row.offset} after ${this.#lastOffset}`,
      );
    }
    this.#lastOffset = row.offset;
    this.#keyless += 1;
    return this.#keylessSection.text(lineText(AofTag.keyless, keylessFields(row)));
  }

  /**
   * Appends a keyless row given as the bytes of its line (without the `\n`),
   * as read from a verified WAL object or export: a keyless WAL row line and
   * a keyless AOF record are the same line (`{"t":"r","s":..,"o":..,"row":..}`),
   * so the fold copies it instead of serializing the row again.
   */
  keylessLine(offset: number, bytes: Uint8Array): Promise<void> | undefined {
    this.#expectOpen();
    if (!(offset > this.#lastOffset)) {
      throw new InternalError(
        `${this.objectKey}: keyless offset ${offset} after ${this.#lastOffset}`,
      );
    }
    this.#lastOffset = offset;
    this.#keyless += 1;
    return this.#keylessSection.line(bytes);
  }

  /**
   * Completes the export: the header (with the keyless count), `keyed` in the
   * order given (ascending key, exactly `header.keyedCount` of them), the
   * streamed keyless rows and the trailer. Returns the whole object's bytes.
   */
  async finish(header: AofHeaderInput, keyed: Iterable<AofKeyedRow>): Promise<Uint8Array> {
    this.#expectOpen();
    this.#state = 'done';
    const first = new GzipSection(this.level);
    try {
      const full: AofHeader = { ...header, keylessCount: this.#keyless };
      await first.text(headerText(full));
      let count = 0;
      let lastKey: string | undefined;
      for (const row of keyed) {
        if (lastKey !== undefined && !(compareKeyIds(row.key, lastKey) > 0)) {
          throw new InternalError(`${this.objectKey}: keyed rows must ascend by key`);
        }
        lastKey = row.key;
        count += 1;
        const wait = first.text(lineText(AofTag.keyed, keyedFields(row)));
        if (wait) await wait;
      }
      if (count !== header.keyedCount) {
        throw new InternalError(
          `${this.objectKey}: header says ${header.keyedCount} keyed rows, ${count} were given`,
        );
      }
      const firstChunks = await first.end();
      const second = this.#keylessSection;
      const crc = crc32Combine(first.crc, second.crc, second.bytes);
      const records = count + this.#keyless;
      await second.raw(
        Buffer.from(`${JSON.stringify({ t: FrameTag.trailer, rows: records, crc32: crc })}\n`),
      );
      const secondChunks = await second.end();
      return Buffer.concat([...firstChunks, ...secondChunks]);
    } catch (error) {
      first.destroy();
      this.#keylessSection.destroy();
      throw error;
    }
  }

  /** Abandons the export (a fold that failed), releasing zlib's resources. */
  abort(): void {
    this.#state = 'done';
    this.#keylessSection.destroy();
  }

  #expectOpen(): void {
    if (this.#state !== 'open')
      throw new InternalError(`${this.objectKey}: writer already finished`);
  }
}

/** A line's text exactly as `FrameWriter` frames it (the `\n` is added by the section): `{"t":<tag>,...fields}`. */
function lineText(tag: string, fields: Record<string, unknown>): string {
  return stringifyLine({ t: tag, ...fields });
}

function headerText(header: AofHeader): string {
  return lineText(FrameTag.header, {
    magic: AOF_MAGIC,
    v: AOF_FORMAT_VERSION,
    ...headerFields(header),
  });
}
