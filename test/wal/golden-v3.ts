/**
 * The batches behind the golden v3 object (`GOLDEN_V3`): each batch's row
 * lines as the put path writes them, gzipped at level 6 (fixed here, so the
 * golden bytes do not follow the put path's level), and the encoder's input
 * made from them.
 */
import { gzipSync } from 'node:zlib';
import { encodeBatchRows } from '../../lib/memtable/batch-codec.js';
import type { FramedBatch } from '../../lib/wal/encode-batches.js';
import type { WalObject } from '../../lib/wal/format.js';

/** The framed batches of `object`: its rows grouped by seq, each group one put's batch. */
export function framedBatches(object: WalObject): FramedBatch[] {
  const bySeq = new Map<number, WalObject['rows']>();
  for (const row of object.rows) bySeq.set(row.seq, [...(bySeq.get(row.seq) ?? []), row]);
  return [...bySeq].map(([seq, rows]) => {
    const encoded = encodeBatchRows(
      rows.map(({ key, delete: del, text }) => ({
        ...(key === undefined ? {} : { key }),
        ...(del ? { delete: true as const } : {}),
        ...(text === undefined ? {} : { text }),
      })),
    );
    return {
      seq,
      rows: encoded.rowCount,
      ingestedAtMs: rows[0]!.ingestedAtMs ?? object.header.createdAtMs,
      member: gzipSync(encoded.json, { level: 6 }),
      textBytes: encoded.jsonBytes,
    };
  });
}
