/**
 * The local stack's first act on a data folder, before it serves any put:
 * seal void every gap the previous run left, so the first tick flushes past
 * them instead of waiting out the gap seal.
 *
 * Why it is exact: a gap is a seq allocated but never written. Every put of
 * a data folder runs in the one stack process that serves it (the HTTP
 * gateway and the SQS poller; `shardwal put` goes through them; a second
 * stack on the folder is refused), and so does the DynamoDB emulator that
 * would store its batch. When a stack starts, the process of the previous
 * run is gone, kill -9 or not: no put of it can still write, and leveldb has
 * recovered whatever it had written. A seq allocated then and empty now
 * stays empty, which is what the gap seal waits to know (L2 in
 * `lib/liveness.ts`). The seal is the flusher's own write (`sealVoid`,
 * conditional on the seq being empty), so it defines what the seq holds
 * exactly once whoever gets there first.
 *
 * Left to the flusher's ordinary rule: a poisoned shard (recovery's), and a
 * shard whose live lease someone other than a local ticker holds (a
 * `shardwal recover` or `export` of the data folder may be mid-way).
 */
import { listBatchHeads } from '../memtable/batch-heads.js';
import { listPendingShards } from '../memtable/pending-index.js';
import { sealVoid } from '../memtable/seal-void.js';
import { leaseHeld, readShardRecord } from '../memtable/shard-record.js';
import type { Table } from '../memtable/table.js';

/** Owner prefix of the local ticker's flush leases (`stack-runtime.ts`). */
export const LOCAL_TICKER_OWNER_PREFIX = 'local-stack-';

/** The seqs sealed on one shard. */
export interface SealedGaps {
  shard: string;
  seqs: number[];
}

/** Seals every gap left by the previous run; see the module comment. */
export async function sealDeadGaps(table: Table, nowMs: number): Promise<SealedGaps[]> {
  const sealed: SealedGaps[] = [];
  for (const shard of await listPendingShards(table)) {
    const record = await readShardRecord(table, shard);
    if (!record || record.poison !== undefined) continue;
    const foreignLease =
      leaseHeld(record, nowMs) && !record.leaseOwner!.startsWith(LOCAL_TICKER_OWNER_PREFIX);
    if (foreignLease) continue;
    const lastSeq = record.nextSeq - 1;
    if (lastSeq <= record.durableSeq) continue;
    const written = new Set(
      (await listBatchHeads(table, shard, record.durableSeq + 1, lastSeq)).map((h) => h.seq),
    );
    const seqs: number[] = [];
    for (let seq = record.durableSeq + 1; seq <= lastSeq; seq++) {
      if (!written.has(seq) && (await sealVoid(table, shard, seq, nowMs)) === 'sealed') {
        seqs.push(seq);
      }
    }
    if (seqs.length > 0) sealed.push({ shard, seqs });
  }
  return sealed;
}
