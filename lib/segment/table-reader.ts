/**
 * Reads a table segment (version 2, docs/segment-format.md): the keyless
 * rows of a shard's WAL positions [first, end) as the Iceberg table the
 * manifest names holds them. No object of its own exists; the manifest's
 * record of the lines is the check.
 *
 * R1. The rows read are those of the table's current snapshot: every live
 *     data file whose bounds admit the shard and a position in the range (a
 *     file without bounds admits any) is read, and its rows of the shard
 *     with a position in the range and no key are the segment's, in offset
 *     order.
 * R2. Each row makes the line a stored segment would hold (`segmentLine`);
 *     offsets must ascend strictly from `firstOffset` to `lastOffset`, seqs
 *     never decrease, and the lines' count, size and CRC-32 must be the
 *     manifest's: the table holds exactly the rows the WAL held when the
 *     export ran. Any difference is a `CorruptDataError`.
 * R3. A listed object that is missing (a data file or a manifest that
 *     maintenance removed once a newer version dropped it, after this read
 *     loaded the metadata) starts the read again from the then current
 *     snapshot, once; missing again, it is a `ListedObjectMissingError` (a
 *     `CorruptDataError`).
 */
import { crc32 } from 'node:zlib';
import { CorruptDataError, ListedObjectMissingError } from '../errors.js';
import type { ObjectStore } from '../store/object-store.js';
import { type FileBounds, fileBounds } from '../table/bounds.js';
import { currentSnapshot, loadCurrent } from '../table/metadata.js';
import { keyOfUri, metadataPrefix } from '../table/paths.js';
import { readColumns } from '../table/read-data-file.js';
import { liveFiles } from '../table/snapshot-files.js';
import type { SegmentRef, SegmentRow } from './format.js';
import { segmentLine } from './lines.js';
import type { SegmentRowHandler } from './reader.js';

const COLUMNS = ['shard', 'seq', 'offset', 'position', 'key', 'row'] as const;

/** A data file the current snapshot lists. */
interface ListedFile {
  key: string;
  bounds: FileBounds | undefined;
}

/** A shard's keyless rows of one data file, with their positions, ascending by offset. */
interface FileRows {
  rows: SegmentRow[];
  positions: number[];
}

/**
 * Per store: the table's listing by metadata version, and the rows of the
 * last files read: a dump or a tail reads a shard's table segments in
 * order, and a compacted file holds the rows of many of them.
 */
interface ReadCache {
  listings: Map<string, { version: number; files: ListedFile[] }>;
  files: Map<string, FileRows>;
}

/** Two: a range that straddles two files, then the next range in the second. */
const CACHED_FILES = 2;
const caches = new WeakMap<ObjectStore, ReadCache>();

/**
 * Drops what this process read from `store`'s tables, so the next read goes
 * to storage (a full verify checks what is stored, not what was read).
 */
export function forgetTableReads(store: ObjectStore): void {
  caches.delete(store);
}

/** Reads the table segment `ref` of `shard` (R1-R3); resolves once every check passed. */
export async function readTableSegment(
  store: ObjectStore,
  shard: string,
  ref: SegmentRef,
  onRow: SegmentRowHandler,
): Promise<void> {
  const table = ref.table!;
  const where = `${metadataPrefix(table)} (table segment of ${shard} at ${ref.first})`;
  let rows: SegmentRow[];
  try {
    rows = await collect(store, table, shard, ref, where);
  } catch (error) {
    if (!(error instanceof ListedObjectMissingError)) throw error;
    caches.get(store)?.listings.delete(table);
    rows = await collect(store, table, shard, ref, where);
  }
  const seen = { rows: 0, rawBytes: 0, crc32: 0 };
  let lastOffset = -1;
  let lastSeq = 0;
  for (const row of rows) {
    if (seen.rows === 0 ? row.offset !== ref.firstOffset : row.offset <= lastOffset) {
      throw new CorruptDataError(
        where,
        `row ${seen.rows + 1}: offset ${row.offset} after ${seen.rows === 0 ? `the start, expected ${ref.firstOffset}` : lastOffset}`,
      );
    }
    if (row.seq < lastSeq) {
      throw new CorruptDataError(where, `seq ${row.seq} after seq ${lastSeq}; seqs never decrease`);
    }
    const line = Buffer.from(segmentLine(row.seq, row.offset, row.text), 'utf8');
    seen.rows += 1;
    seen.rawBytes += line.length + 1;
    seen.crc32 = crc32('\n', crc32(line, seen.crc32));
    lastOffset = row.offset;
    lastSeq = row.seq;
    const wait = onRow(row, line);
    if (wait) await wait;
  }
  for (const name of ['rows', 'rawBytes', 'crc32'] as const) {
    if (seen[name] !== ref[name]) {
      throw new CorruptDataError(
        where,
        `the manifest records ${name} ${ref[name]}, the table's rows make ${seen[name]}`,
      );
    }
  }
  if (lastOffset !== ref.lastOffset) {
    throw new CorruptDataError(
      where,
      `ends at offset ${lastOffset}, the manifest says ${ref.lastOffset}`,
    );
  }
}

/** R1: the segment's rows from the files that may hold them, by offset. */
async function collect(
  store: ObjectStore,
  table: string,
  shard: string,
  ref: SegmentRef,
  where: string,
): Promise<SegmentRow[]> {
  const rows: SegmentRow[] = [];
  for (const file of await listFiles(store, table, where)) {
    const { bounds } = file;
    if (
      bounds &&
      (shard < bounds.shard[0] ||
        shard > bounds.shard[1] ||
        bounds.position[1] < ref.first ||
        bounds.position[0] >= ref.end)
    ) {
      continue;
    }
    const read = await readFileRows(store, file.key, shard);
    for (let i = 0; i < read.rows.length; i++) {
      const position = read.positions[i]!;
      if (position >= ref.first && position < ref.end) rows.push(read.rows[i]!);
    }
  }
  return rows.sort((a, b) => a.offset - b.offset);
}

function cacheOf(store: ObjectStore): ReadCache {
  let cache = caches.get(store);
  if (!cache) {
    cache = { listings: new Map(), files: new Map() };
    caches.set(store, cache);
  }
  return cache;
}

/** The current snapshot's data files, listed once per metadata version. */
async function listFiles(store: ObjectStore, table: string, where: string): Promise<ListedFile[]> {
  const loaded = await loadCurrent(store, table);
  if (!loaded) throw new CorruptDataError(where, `table ${table} has no metadata`);
  const cache = cacheOf(store);
  const cached = cache.listings.get(table);
  if (cached?.version === loaded.version) return cached.files;
  const { metadata } = loaded;
  const live = await liveFiles({ store }, table, metadata, currentSnapshot(metadata));
  const files = live.map(({ file }) => ({
    key: keyOfUri(metadata.location, table, file.file_path),
    bounds: fileBounds(file.lower_bounds, file.upper_bounds),
  }));
  cache.listings.set(table, { version: loaded.version, files });
  return files;
}

/** A data file's keyless rows of `shard` (data files are immutable, so a read one is kept a while). */
async function readFileRows(store: ObjectStore, key: string, shard: string): Promise<FileRows> {
  const { files } = cacheOf(store);
  const id = `${key}\n${shard}`;
  const cached = files.get(id);
  if (cached) return cached;
  const bytes = await store.get(key);
  if (!bytes) throw new ListedObjectMissingError(key);
  const out: FileRows = { rows: [], positions: [] };
  for (const r of await readColumns(bytes, COLUMNS)) {
    if (r.shard !== shard || (r.key !== null && r.key !== undefined)) continue;
    out.rows.push({ seq: Number(r.seq), offset: Number(r.offset), text: r.row as string });
    out.positions.push(Number(r.position));
  }
  files.set(id, out);
  if (files.size > CACHED_FILES) files.delete(files.keys().next().value!);
  return out;
}
