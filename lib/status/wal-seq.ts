/**
 * What the WAL says about one seq, for a seq whose batch item and void
 * tombstone have expired (L4, L5 in `lib/liveness.ts`). Only objects at
 * positions in [aofWatermark, walNextPos) are read: below the watermark a
 * retired slot may hold a stale zombie write, so nothing reads there, and at
 * or past `walNextPos` nothing is committed.
 *
 * Cost: a binary search over those positions reading only each probed
 * object's header (a streamed GET, abandoned after the first line), then one
 * GET of the object that covers the seq, streamed to its end and verified
 * (checksum, version) before its `voidSeqs` is believed: at most
 * ⌈log2(n + 1)⌉ + 1 GETs for n objects above the watermark.
 */
import { UnavailableError } from '../errors.js';
import { walKey } from '../paths.js';
import type { ObjectStore } from '../store/object-store.js';
import { readWal } from '../wal/decode.js';
import type { WalHeader } from '../wal/format.js';

/** The WAL's answer: the seq's batch is in it (`rows`), sealed void in it, or not in the readable WAL. */
export type WalSeqAnswer = { found: true; void: boolean; position: number } | { found: false };

/** Cursors of the readable WAL. */
export interface ReadableWal {
  shard: string;
  /** First readable position (the AOF watermark). */
  fromPosition: number;
  /** One past the last committed position (`walNextPos`). */
  toPosition: number;
}

/** Looks `seq` up in the readable WAL (see the module comment). */
export async function walSeq(
  store: ObjectStore,
  wal: ReadableWal,
  seq: number,
): Promise<WalSeqAnswer> {
  let lo = wal.fromPosition;
  let hi = wal.toPosition - 1;
  while (lo <= hi) {
    const mid = lo + Math.floor((hi - lo) / 2);
    const header = await readHeader(store, walKey(wal.shard, mid));
    if (seq < header.firstSeq) hi = mid - 1;
    else if (seq > header.lastSeq) lo = mid + 1;
    else return verifiedAnswer(store, walKey(wal.shard, mid), seq);
  }
  return { found: false };
}

/** The covering object read to its end (memory bounded: rows are dropped as they stream by). */
async function verifiedAnswer(store: ObjectStore, key: string, seq: number) {
  const stream = await store.getStream(key);
  if (!stream) throw vanished(key);
  let header: WalHeader | undefined;
  // The trailer's checksum is checked when the iteration ends: the header is believed only then.
  for await (const entry of readWal(key, stream)) {
    if (entry.kind === 'header') header = entry.header;
  }
  if (!header || seq < header.firstSeq || seq > header.lastSeq) {
    throw new UnavailableError(`${key} changed while it was read; ask again`);
  }
  return { found: true, void: header.voidSeqs.includes(seq), position: header.position } as const;
}

/** The first line of a WAL object, unverified: it only steers the search. */
async function readHeader(store: ObjectStore, key: string): Promise<WalHeader> {
  const stream = await store.getStream(key);
  if (!stream) throw vanished(key);
  const entries = readWal(key, stream);
  try {
    const first = await entries.next();
    if (first.done || first.value.kind !== 'header') throw vanished(key);
    return first.value.header;
  } finally {
    await entries.return();
    stream.destroy();
  }
}

function vanished(key: string): UnavailableError {
  return new UnavailableError(`${key} is committed but could not be read; ask again`);
}
