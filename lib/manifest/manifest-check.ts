/**
 * The consistency rules of a manifest, one copy shared by the encoder (a
 * violation is a bug: `InternalError`) and the reader (`CorruptDataError`),
 * applied record by record. None of them reads a part or a segment.
 *
 * 1. The header's counts are non-negative safe integers; `shard` is a valid
 *    shard name; `historyFloor ≤ coveredPosition`; `previousExport` is null
 *    or below `coveredPosition`.
 * 2. Every part precedes every segment. Parts: at most one base, first, with
 *    `from` 0; ranges within [0, coveredPosition], `from < to`, in order
 *    (a part's `from` is at or after the previous part's `to`, or it is the
 *    next index of the same range); a base has no deletes; `deletes ≤ rows`.
 * 3. Segments: `historyFloor ≤ first < end ≤ coveredPosition`, ascending and
 *    disjoint (`end ≤` the next one's `first`); `rows ≥ 1`; offsets ascend
 *    within and across segments (`firstOffset ≤ lastOffset <` the next
 *    `firstOffset`), `lastOffset < nextRowOffset`, and a segment holds at
 *    most one row per offset of its span.
 * 4. Every size, count and CRC-32 is a non-negative safe integer (a CRC at
 *    most 2^32 - 1); every part and segment version is one this code reads
 *    (an unknown one is an `UnknownFormatVersionError` for the manifest).
 * 5. `keylessRows` is the sum of the segments' rows.
 * 6. A table segment (version 2) names a valid table and stores no bytes of
 *    its own (`bytes` 0), and only a format-2 manifest lists one; a format-1
 *    segment names no table.
 */
import {
  SEGMENT_READABLE_VERSIONS,
  type SegmentRef,
  TABLE_SEGMENT_VERSION,
} from '../segment/format.js';
import { SNAPSHOT_READABLE_VERSIONS, type SnapshotPartRef } from '../snapshot/format.js';
import { TABLE_NAME_PATTERN } from '../table/names.js';
import { checkCountsAndShard, type Fail, isCount, show } from '../wal/wal-check.js';
import { MANIFEST_TABLE_SEGMENTS_VERSION, type ManifestHeader } from './format.js';

const HEADER_COUNTS = [
  'coveredPosition',
  'lastSeq',
  'nextRowOffset',
  'historyFloor',
  'keylessRows',
  'createdAtMs',
] as const;
const MAX_CRC32 = 0xffff_ffff;

/** Raised for a part or segment version this code cannot read (rule 4). */
export type UnknownVersion = (what: string, version: unknown, readable: readonly number[]) => never;

/** Applies the rules: construct with the header, call `part`/`segment` per record, then `finish`. */
export class ManifestChecker {
  #lastPart: SnapshotPartRef | undefined;
  #lastSegment: SegmentRef | undefined;
  #keylessRows = 0;

  constructor(
    readonly header: ManifestHeader,
    private readonly version: number,
    private readonly fail: Fail,
    private readonly unknownVersion: UnknownVersion,
  ) {
    checkCountsAndShard(header, HEADER_COUNTS, fail);
    if (header.historyFloor > header.coveredPosition) {
      fail(
        `header: historyFloor ${header.historyFloor} is above coveredPosition ${header.coveredPosition}`,
      );
    }
    const previous = header.previousExport;
    if (previous !== null && !(isCount(previous) && previous < header.coveredPosition)) {
      fail(
        `header: previousExport must be null or an integer below coveredPosition ${header.coveredPosition}, got ${show(previous)}`,
      );
    }
  }

  /** Checks the next part record. */
  part(part: SnapshotPartRef, where: string): void {
    if (this.#lastSegment) this.fail(`${where}: a part after a segment`);
    this.#counts(part, ['from', 'to', 'index', 'rows', 'deletes', 'rawBytes', 'bytes'], where);
    this.#crc(part.crc32, where);
    if (!(SNAPSHOT_READABLE_VERSIONS as readonly number[]).includes(part.v)) {
      this.unknownVersion(`${where} (snapshot part)`, part.v, SNAPSHOT_READABLE_VERSIONS);
    }
    if (part.kind !== 'base' && part.kind !== 'delta') {
      this.fail(`${where}: kind must be "base" or "delta", got ${show(part.kind)}`);
    }
    if (!(part.from < part.to && part.to <= this.header.coveredPosition)) {
      this.fail(
        `${where}: range [${part.from}, ${part.to}) is empty or beyond coveredPosition ${this.header.coveredPosition}`,
      );
    }
    if (part.deletes > part.rows)
      this.fail(`${where}: ${part.deletes} deletes of ${part.rows} rows`);
    const previous = this.#lastPart;
    if (part.kind === 'base') {
      if (previous) this.fail(`${where}: a base must be the first part`);
      if (part.from !== 0) this.fail(`${where}: a base starts at position 0, got ${part.from}`);
      if (part.deletes !== 0) this.fail(`${where}: a base holds no deletes`);
      if (part.index !== 0) this.fail(`${where}: a base has index 0, got ${part.index}`);
    } else if (previous) {
      const sameRange = previous.from === part.from && previous.to === part.to;
      const continues = sameRange
        ? previous.kind === 'delta' && part.index === previous.index + 1
        : part.from >= previous.to && part.index === 0;
      if (!continues) {
        this.fail(
          `${where}: delta [${part.from}, ${part.to}) #${part.index} does not follow [${previous.from}, ${previous.to}) #${previous.index}`,
        );
      }
    } else if (part.index !== 0) {
      this.fail(`${where}: the first delta of a range has index 0, got ${part.index}`);
    }
    this.#lastPart = part;
  }

  /** Checks the next segment record. */
  segment(segment: SegmentRef, where: string): void {
    this.#counts(
      segment,
      ['first', 'end', 'firstOffset', 'lastOffset', 'rows', 'rawBytes', 'bytes', 'createdAtMs'],
      where,
    );
    this.#crc(segment.crc32, where);
    if (!(SEGMENT_READABLE_VERSIONS as readonly number[]).includes(segment.v)) {
      this.unknownVersion(`${where} (segment)`, segment.v, SEGMENT_READABLE_VERSIONS);
    }
    if (segment.v === TABLE_SEGMENT_VERSION) this.#tableSegment(segment, where);
    const { historyFloor, coveredPosition, nextRowOffset } = this.header;
    if (
      !(
        historyFloor <= segment.first &&
        segment.first < segment.end &&
        segment.end <= coveredPosition
      )
    ) {
      this.fail(
        `${where}: range [${segment.first}, ${segment.end}) is not within [historyFloor ${historyFloor}, coveredPosition ${coveredPosition})`,
      );
    }
    if (segment.rows < 1) this.fail(`${where}: a segment holds at least one row`);
    if (!(segment.firstOffset <= segment.lastOffset && segment.lastOffset < nextRowOffset)) {
      this.fail(
        `${where}: offsets ${segment.firstOffset}..${segment.lastOffset} are not ascending below nextRowOffset ${nextRowOffset}`,
      );
    }
    if (segment.rows > segment.lastOffset - segment.firstOffset + 1) {
      this.fail(
        `${where}: ${segment.rows} rows cannot fit offsets ${segment.firstOffset}..${segment.lastOffset}`,
      );
    }
    const previous = this.#lastSegment;
    if (previous && !(previous.end <= segment.first && previous.lastOffset < segment.firstOffset)) {
      this.fail(
        `${where}: segment [${segment.first}, ${segment.end}) does not follow [${previous.first}, ${previous.end}) (positions and offsets ascend)`,
      );
    }
    this.#keylessRows += segment.rows;
    this.#lastSegment = segment;
  }

  /** Checks what only the whole manifest shows. */
  finish(): void {
    if (this.#keylessRows !== this.header.keylessRows) {
      this.fail(
        `header says ${this.header.keylessRows} keyless rows, the segments hold ${this.#keylessRows}`,
      );
    }
  }

  /** Rule 6. */
  #tableSegment(segment: SegmentRef, where: string): void {
    if (this.version < MANIFEST_TABLE_SEGMENTS_VERSION) {
      this.fail(`${where}: a table segment in a format-${this.version} manifest`);
    }
    if (typeof segment.table !== 'string' || !TABLE_NAME_PATTERN.test(segment.table)) {
      this.fail(`${where}: table must be a table name, got ${show(segment.table)}`);
    }
    if (segment.bytes !== 0) {
      this.fail(`${where}: a table segment stores no bytes of its own, got bytes ${segment.bytes}`);
    }
  }

  #counts(record: object, names: readonly string[], where: string): void {
    for (const name of names) {
      const value = (record as Record<string, unknown>)[name];
      if (!isCount(value))
        this.fail(`${where}: ${name} must be a non-negative integer, got ${show(value)}`);
    }
  }

  #crc(value: unknown, where: string): void {
    if (!isCount(value) || (value as number) > MAX_CRC32) {
      this.fail(`${where}: crc32 must be an unsigned 32-bit integer, got ${show(value)}`);
    }
  }
}
