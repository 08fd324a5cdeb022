/**
 * One row group's rows gathered column by column, in the form the Parquet
 * writer takes them (`data-file.ts`), as the committer reads them: no object
 * per row, counts as plain numbers (the writer stores them as INT64 exactly:
 * they are safe integers), and each row's text copied as UTF-8 into large
 * byte chunks as it arrives, so the string the WAL reader made dies young
 * and the writer takes bytes instead of encoding each text again.
 */
import type { TypedValue } from './project.js';

/** Bytes of one text chunk: texts are copied into chunks of this size, a new one when the last is full (never copied again). */
const TEXT_CHUNK_BYTES = 4 << 20;

/** A row's fixed columns (all but `row` and the typed ones). */
export interface FixedColumns {
  shard: string;
  seq: number;
  offset: number;
  position: number;
  ingestedAtMs: number;
  key: string | null;
  op: string;
}

/** Rows gathered column by column. */
export class DataColumns {
  readonly shard: string[] = [];
  readonly seq: number[] = [];
  readonly offset: number[] = [];
  readonly position: number[] = [];
  readonly ingestedAtMs: number[] = [];
  readonly key: Array<string | null> = [];
  readonly op: string[] = [];
  /** Typed columns, in the schema's order after the fixed ones (filled by the caller, one value per row). */
  readonly typed: TypedValue[][];
  /** Filled chunks, then the one being filled. */
  readonly #chunks: Buffer[] = [];
  #chunk = Buffer.allocUnsafe(0);
  #chunkAt = 0;
  /** Per row: its chunk's index, or -1 for a row without a text (a delete). */
  readonly #textChunk: number[] = [];
  /** Per row: where its text ends in its chunk (it starts where the chunk's previous text ends, or at 0). */
  readonly #textEnd: number[] = [];

  constructor(typedCount: number) {
    this.typed = Array.from({ length: typedCount }, () => []);
  }

  /** Rows gathered. */
  get length(): number {
    return this.seq.length;
  }

  /** Adds a row's fixed columns and text (its typed values go to `typed`). */
  add(fixed: FixedColumns, text: string | null): void {
    this.shard.push(fixed.shard);
    this.seq.push(fixed.seq);
    this.offset.push(fixed.offset);
    this.position.push(fixed.position);
    this.ingestedAtMs.push(fixed.ingestedAtMs);
    this.key.push(fixed.key);
    this.op.push(fixed.op);
    if (text === null) {
      this.#textChunk.push(-1);
      this.#textEnd.push(0);
      return;
    }
    // A UTF-16 unit takes at most 3 UTF-8 bytes; `write` would silently cut a text that does not fit.
    const most = text.length * 3;
    if (this.#chunkAt + most > this.#chunk.length) {
      this.#chunk = Buffer.allocUnsafe(Math.max(TEXT_CHUNK_BYTES, most));
      this.#chunks.push(this.#chunk);
      this.#chunkAt = 0;
    }
    this.#chunkAt += this.#chunk.write(text, this.#chunkAt);
    this.#textChunk.push(this.#chunks.length - 1);
    this.#textEnd.push(this.#chunkAt);
  }

  /** Each row's text as UTF-8 bytes (views into one buffer), null for rows without one. */
  texts(): Array<Uint8Array | null> {
    const out = new Array<Uint8Array | null>(this.#textEnd.length);
    let chunk = -1;
    let start = 0;
    for (let i = 0; i < out.length; i++) {
      const at = this.#textChunk[i]!;
      if (at < 0) {
        out[i] = null;
        continue;
      }
      if (at !== chunk) {
        chunk = at;
        start = 0;
      }
      const end = this.#textEnd[i]!;
      const bytes = this.#chunks[at]!;
      out[i] = new Uint8Array(bytes.buffer, bytes.byteOffset + start, end - start);
      start = end;
    }
    return out;
  }
}
