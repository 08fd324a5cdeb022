/**
 * Legacy AOF exports (format v2, docs/aof-format.md) as the previous version
 * wrote them, for the tests of the code that still reads them (`lib/aof/`,
 * recovery from a legacy export). shardwal no longer writes AOF exports, so
 * the writer lives here: the shared framing of every stored format (header,
 * keyed records, keyless records, trailer) in two gzip members, as the old
 * streaming writer produced them: header and keyed records, then keyless
 * records and trailer (the reader must take a multi-member file).
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import type { AofObject } from '../../lib/aof/format.js';
import {
  AOF_FRAME,
  AofTag,
  headerFields,
  keyedFields,
  keylessFields,
} from '../../lib/aof/lines-v1.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { recordWatermark } from '../../lib/memtable/watermark.js';
import { aofKey } from '../../lib/paths.js';
import { replayShard } from '../../lib/recovery/replay.js';
import { encodeFrame } from '../../lib/wal/framing.js';
import type { Fixture } from './harness.js';

/** The bytes of `object` as an AOF export (keyed rows in key order, keyless in offset order, as given). */
export function encodeAof(object: AofObject): Uint8Array {
  const framed = encodeFrame(AOF_FRAME, headerFields(object.header), [
    ...object.keyed.map((row) => ({ tag: AofTag.keyed, fields: keyedFields(row) })),
    ...object.keyless.map((row) => ({ tag: AofTag.keyless, fields: keylessFields(row) })),
  ]);
  const text = gunzipSync(framed);
  let split = 0; // the end of the header line and the keyed records
  for (let line = 0; line < 1 + object.keyed.length; line++) split = text.indexOf(0x0a, split) + 1;
  return Buffer.concat([gzipSync(text.subarray(0, split)), gzipSync(text.subarray(split))]);
}

/** Writes a legacy (v2) AOF export of everything committed, the way the previous version did, and records its watermark. */
export async function writeLegacyExport(f: Fixture, shard: string): Promise<number> {
  const record = (await readShardRecord(f.table, shard))!;
  const replay = await replayShard(f.store, shard, {
    useExport: false,
    keepRows: true,
    keepKeyless: true,
  });
  const keyed = [...replay.state.sortedKeyed()];
  const bytes = encodeAof({
    header: {
      shard,
      coveredPosition: record.walNextPos,
      lastSeq: replay.walk.end.lastSeq,
      nextRowOffset: replay.walk.end.nextRowOffset,
      keyedCount: keyed.length,
      keylessCount: replay.state.keyless.length,
      previousExport: null,
      createdAtMs: f.clock.now(),
    },
    keyed,
    keyless: [...replay.state.keyless],
  });
  await f.memory.putIfAbsent(aofKey(shard, record.walNextPos), bytes);
  await recordWatermark(f.table, shard, record.walNextPos, f.clock.now());
  return record.walNextPos;
}
