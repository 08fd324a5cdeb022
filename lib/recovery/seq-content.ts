/**
 * What S3 holds at one seq, for reconciliation's rule 2 (`reconcile-batches.ts`):
 * is a batch item at a seq S3 already proves the original put's (covered) or a
 * put a rolled-back record handed the seq to again (rejected)?
 *
 * C1. Above the export, the WAL object holding the seq (indexed by the
 *     replay) decides by content.
 * C2. Inside the export, which keeps no per-seq content, an item older than
 *     the export's `createdAtMs` by more than the clock skew is covered: its
 *     put wrote it before the export took that time, right after reading the
 *     record, and a reissued put writes only after a restore that came after
 *     that read. Any other item is compared with the
 *     WAL object below the export that holds its seq, when it is still
 *     there: the item and the export are dated by two processes' clocks, and
 *     the flush just before an export leaves items as young as the export, or
 *     younger by up to the skew (simulation seed 10014295 quarantined such a
 *     put, whose rows the export holds). The lookup walks down from the
 *     export's position and stops at a missing object or at one written
 *     before the item by more than the skew (the item's own object, lower
 *     still, could not hold it), so it reads the few objects of the last
 *     ticks before the export. It only dates the item: the export stays the
 *     authority for the state (the replay never reads below it). A slot there
 *     holds what the old timeline's flushers wrote, even when retention
 *     retired it and a zombie wrote it again: a restored record's flusher
 *     never writes at a position an export covers (B1 in
 *     `lib/flush/record-behind.ts`), so a reissued put's rows never land there.
 * C3. Inside the export with no such object: covered only if the item is not
 *     younger than the export.
 */
import { CorruptDataError, UnavailableError } from '../errors.js';
import type { BatchRow } from '../memtable/batch-codec.js';
import type { BatchHead } from '../memtable/batch-heads.js';
import { readBatches } from '../memtable/read-batches.js';
import { walKey } from '../paths.js';
import { sameRows } from '../rows/row.js';
import { decodeWal } from '../wal/decode.js';
import type { WalObject, WalRow } from '../wal/format.js';
import type { RecoveryDeps } from './deps.js';
import type { ObjectSpan, Replay } from './replay.js';

/** Whether an item holds what S3 holds at its seq; when not, why, and the item's rows. */
type Verdict = { covered: true } | { covered: false; reason: string; rows: BatchRow[] };

/** What `SeqContent` needs. */
interface SeqContentInput {
  shard: string;
  replay: Replay;
  /** Clock skew between processes (`SHARDWAL_CLOCK_SKEW_MS`). */
  clockSkewMs: number;
}

/** Compares batch items with what S3 holds at their seqs (C1-C3; objects read once). */
export class SeqContent {
  #cached: WalObject | undefined;
  /** Objects below the export read so far (null: missing or unreadable). */
  readonly #below = new Map<number, WalObject | null>();

  constructor(
    private readonly deps: Pick<RecoveryDeps, 'table' | 'store'>,
    private readonly input: SeqContentInput,
  ) {}

  async compare(head: BatchHead): Promise<Verdict> {
    const { seq } = head;
    const [batch] = await readBatches(this.deps.table, {
      shard: this.input.shard,
      fromSeq: seq,
      toSeq: seq,
      maxBytes: Number.MAX_SAFE_INTEGER,
    });
    const rows = batch?.kind === 'rows' ? batch.rows : [];
    // C1.
    const span = findSpan(this.input.replay.objectIndex, seq);
    if (span) return compareWith(await this.#object(span.position), seq, rows);
    const used = this.input.replay.export;
    if (used && seq <= used.lastSeq) {
      // C2.
      const skew = this.input.clockSkewMs;
      if (head.createdAtMs <= used.createdAtMs - skew) return { covered: true };
      const below = await this.#belowExport(used.coveredPosition, seq, head.createdAtMs - skew);
      if (below) return compareWith(below, seq, rows);
      // C3.
      if (head.createdAtMs <= used.createdAtMs) return { covered: true };
      return {
        covered: false,
        reason: `${already(seq)}: written after the export ${used.key} that covers it was built`,
        rows,
      };
    }
    return {
      covered: false,
      reason: `${already(seq)}, and its content there could not be located`,
      rows,
    };
  }

  /** The object below `coveredPosition` holding `seq`, unless one written before `notBeforeMs` comes first. */
  async #belowExport(
    coveredPosition: number,
    seq: number,
    notBeforeMs: number,
  ): Promise<WalObject | undefined> {
    for (let position = coveredPosition - 1; position >= 0; position--) {
      const object = await this.#readBelow(position);
      if (!object || object.header.lastSeq < seq) return undefined;
      if (object.header.firstSeq <= seq) return object;
      if (object.header.createdAtMs < notBeforeMs) return undefined;
    }
    return undefined;
  }

  async #readBelow(position: number): Promise<WalObject | null> {
    const known = this.#below.get(position);
    if (known !== undefined) return known;
    const key = walKey(this.input.shard, position);
    const bytes = await this.deps.store.get(key);
    let object: WalObject | null = null;
    try {
      object = bytes ? decodeWal(key, bytes) : null;
    } catch (error) {
      // Below the export nothing is trusted for the state; an unreadable object dates nothing.
      if (!(error instanceof CorruptDataError)) throw error;
    }
    this.#below.set(position, object);
    return object;
  }

  async #object(position: number): Promise<WalObject> {
    if (this.#cached?.header.position === position) return this.#cached;
    const key = walKey(this.input.shard, position);
    const bytes = await this.deps.store.get(key);
    if (!bytes) throw new UnavailableError(`${key} vanished during rebuild; run it again`);
    this.#cached = decodeWal(key, bytes);
    return this.#cached;
  }
}

function already(seq: number): string {
  return `rows rejected: seq ${seq} already durable in S3`;
}

/** The verdict of `object`, which holds `seq`, on an item holding `rows`. */
function compareWith(object: WalObject, seq: number, rows: BatchRow[]): Verdict {
  const { position } = object.header;
  if (object.header.voidSeqs.includes(seq)) {
    return { covered: false, reason: `${already(seq)} as a void (position ${position})`, rows };
  }
  const stored = object.rows.filter((row) => row.seq === seq).map(toBatchRow);
  if (sameRows(rows, stored)) return { covered: true };
  return {
    covered: false,
    reason: `${already(seq)} with different rows (position ${position})`,
    rows,
  };
}

/** The span holding `seq`; spans ascend by position and so by seq. */
function findSpan(spans: readonly ObjectSpan[], seq: number): ObjectSpan | undefined {
  let lo = 0;
  let hi = spans.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const span = spans[mid]!;
    if (seq < span.firstSeq) hi = mid - 1;
    else if (seq > span.lastSeq) lo = mid + 1;
    else return span;
  }
  return undefined;
}

function toBatchRow(row: WalRow): BatchRow {
  const out: BatchRow = {};
  if (row.key !== undefined) out.key = row.key;
  if (row.delete) out.delete = true;
  if (row.text !== undefined) out.text = row.text;
  return out;
}
