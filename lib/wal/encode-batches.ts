/**
 * Encodes a WAL object in format v3 (docs/wal-format.md, "Version 3") from
 * the batches' compressed payloads as the put path stored them: every byte
 * is compressed once, by the put. The object is a run of gzip members:
 *
 *   [header line + frame of batch 1] [batch 1's member] [frame of batch 2]
 *   [batch 2's member] ... [trailer line]
 *
 * Gzip members concatenate into one stream (RFC 1952 §2.2): `gzip -dc`
 * shows the lines of v1 and v2, with a frame line (`{"t":"b",...}`) before
 * each batch's rows. Each member keeps its own CRC-32 (checked by every
 * gunzip); the trailer's CRC-32 of the whole text is combined from the frame
 * lines' and the members' (`crc32-combine.ts`), so no batch is inflated.
 *
 * E1. A batch member is taken as is only when it is one gzip member whose
 *     trailer says the uncompressed length the put recorded; the flusher
 *     re-encodes anything else from its rows (`lib/flush/build-wal-object.ts`).
 * E2. The header and frames are checked by the same rules a reader applies
 *     (`WalChecker` on the header, `BatchFrames` per frame) before a byte is
 *     written; a violation is a bug (`InternalError`).
 */
import { crc32, gzipSync } from 'node:zlib';
import { InternalError } from '../errors.js';
import { stringifyLine } from '../rows/raw-json.js';
import { type BatchFrame, BatchFrames, batchFrameFields } from './batch-frames.js';
import { crc32Combine } from './crc32-combine.js';
import { WAL_FORMAT_VERSION, WAL_MAGIC, type WalHeader } from './format.js';
import { FRAME_GZIP_LEVEL, FrameTag } from './framing.js';
import { headerFields, WalTag } from './lines-v1.js';
import { WalChecker } from './wal-check.js';

/** One batch of a v3 object: its frame and its gzip member. */
export interface FramedBatch {
  seq: number;
  rows: number;
  /** When the put buffered it (the batch item's write time), ms since the Unix epoch. */
  ingestedAtMs: number;
  /** One gzip member of its row lines (`lib/memtable/batch-codec.ts`, `lines-v2`). */
  member: Uint8Array;
  /** Uncompressed bytes of the member. */
  textBytes: number;
}

/** What a gzip member's trailer says: CRC-32 and length of its text (RFC 1952 §2.3.1). */
export function memberTrailer(member: Uint8Array): { crc32: number; bytes: number } | undefined {
  if (member.length < 18 || member[0] !== 0x1f || member[1] !== 0x8b) return undefined;
  const view = new DataView(member.buffer, member.byteOffset, member.byteLength);
  return {
    crc32: view.getUint32(member.length - 8, true),
    bytes: view.getUint32(member.length - 4, true),
  };
}

/** The v3 bytes of a WAL object covering `batches` (void seqs listed in the header). */
export function encodeWalBatches(header: WalHeader, batches: readonly FramedBatch[]): Uint8Array {
  const fail = (problem: string): never => {
    throw new InternalError(
      `encodeWalBatches(${header.shard} position ${header.position}): ${problem}`,
    );
  };
  const checker = new WalChecker(header, fail);
  const frames = new BatchFrames(header, fail);
  const parts: Uint8Array[] = [];
  let crc = 0;
  let records = 0;
  let text = lineOf({
    t: FrameTag.header,
    magic: WAL_MAGIC,
    v: WAL_FORMAT_VERSION,
    ...headerFields(header),
  });
  let offset = header.firstRowOffset;
  for (const batch of batches) {
    const frame: BatchFrame = {
      seq: batch.seq,
      firstOffset: offset,
      rows: batch.rows,
      ingestedAtMs: batch.ingestedAtMs,
    };
    const fields = { t: WalTag.batch, ...batchFrameFields(frame) };
    frames.frame(fields, `batch ${batch.seq}`);
    text += lineOf(fields);
    records += 1;
    // Close the text member, then the batch's own member as it is.
    const textBytes = Buffer.from(text, 'utf8');
    crc = crc32(textBytes, crc);
    parts.push(gzipSync(textBytes, { level: FRAME_GZIP_LEVEL }));
    text = '';
    const trailer = memberTrailer(batch.member);
    if (trailer === undefined || trailer.bytes !== batch.textBytes % 2 ** 32) {
      fail(`batch ${batch.seq}: its payload is not one gzip member of ${batch.textBytes} bytes`);
    }
    crc = crc32Combine(crc, trailer!.crc32, batch.textBytes);
    parts.push(batch.member);
    for (let i = 0; i < batch.rows; i++) {
      const where = `batch ${batch.seq} row ${i}`;
      // Rows are checked for order and placement; their text is the put's and its member's CRC covers it.
      checker.row(frames.place({ seq: 0, offset: 0, text: '{}' }, where), where);
    }
    records += batch.rows;
    offset += batch.rows;
  }
  frames.finish();
  checker.finish();
  // Text not yet closed (the header alone, when every batch is void) comes before the trailer.
  crc = crc32(Buffer.from(text, 'utf8'), crc);
  const trailer = `${JSON.stringify({ t: FrameTag.trailer, rows: records, crc32: crc })}\n`;
  parts.push(gzipSync(Buffer.from(text + trailer, 'utf8'), { level: FRAME_GZIP_LEVEL }));
  return Buffer.concat(parts);
}

function lineOf(fields: Record<string, unknown>): string {
  return `${stringifyLine(fields)}\n`;
}
