/**
 * The export half of `dump`: which AOF export a dump starts from, and its
 * rows as dump rows. The choice is recovery's rule: the newest export that
 * verifies (one past the record's `walNextPos` would cover uncommitted
 * positions, so it is not a candidate), passing over a broken one loudly.
 *
 * An export is read twice, whole each time and streamed: once to verify it
 * (its checksum is on its last line), then to print it. So no row of a broken
 * export is ever printed, and memory stays bounded by one read buffer.
 */
import type { AofHeader } from '../aof/format.js';
import { readAof } from '../aof/reader.js';
import { CorruptDataError } from '../errors.js';
import {
  type ExportFallback,
  type ExportRef,
  listExports,
  loadNewestValid,
  streamExport,
} from '../recovery/export-source.js';
import type { ObjectStore } from '../store/object-store.js';
import type { WalRow } from '../wal/format.js';

/** The export a dump starts from, verified. */
export interface DumpExport {
  ref: ExportRef;
  header: AofHeader;
}

/** The newest export of `shard` covering at most `maxPosition` that verifies; undefined if none. */
export async function findDumpExport(
  store: ObjectStore,
  shard: string,
  options: { maxPosition?: number; onFallback: (fallback: ExportFallback) => Promise<void> },
): Promise<DumpExport | undefined> {
  const candidates = (await listExports(store, shard))
    .filter(
      (ref) => options.maxPosition === undefined || ref.coveredPosition <= options.maxPosition,
    )
    .reverse();
  const fallbacks: ExportFallback[] = [];
  const loaded = await loadNewestValid(
    candidates,
    (ref) => streamExport(store, ref, { keyed: () => {}, keyless: () => undefined }),
    (fallback) => fallbacks.push(fallback),
  );
  for (const fallback of fallbacks) await options.onFallback(fallback);
  return loaded && { ref: loaded.ref, header: loaded.result };
}

/** The newest export's covered position by its key alone (unverified); 0 when there is none. */
export async function newestExportPosition(store: ObjectStore, shard: string): Promise<number> {
  const refs = await listExports(store, shard);
  return refs.at(-1)?.coveredPosition ?? 0;
}

/** The rows of a verified export as dump rows: live keyed rows by key, then keyless rows by offset. */
export async function* exportRows(
  store: ObjectStore,
  ref: ExportRef,
): AsyncGenerator<WalRow, void, undefined> {
  const stream = await store.getStream(ref.key);
  if (!stream) throw new CorruptDataError(ref.key, 'verified a moment ago but no longer readable');
  try {
    for await (const entry of readAof(ref.key, stream)) {
      if (entry.kind === 'keyed') {
        const { seq, offset, key, row } = entry.row;
        yield { seq, offset, key, row };
      } else if (entry.kind === 'keyless') {
        const { seq, offset, row } = entry.row;
        yield { seq, offset, row };
      }
    }
  } finally {
    stream.destroy();
  }
}
