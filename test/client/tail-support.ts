/**
 * For the reader's tests: a shard driven through the real put, flush and
 * export paths (dynalite and a memory store, `test/support/harness.ts`),
 * with the full history of what it was given — every row with the seq and
 * offset it got, and which WAL position holds which seqs — so a tail can be
 * compared row for row with what it should yield.
 */

import type { TailNotice, TailRow } from '../../lib/client/reader/index.js';
import type { ExportReport } from '../../lib/export/export-report.js';
import { exportShard } from '../../lib/export/export-shard.js';
import { flushShard } from '../../lib/flush/flush-shard.js';
import { putRows } from '../../lib/put/put-rows.js';
import { parsePutText } from '../../lib/put/schema.js';
import type { ListOptions, ObjectStore } from '../../lib/store/object-store.js';
import { exportDepsOf } from '../recovery/support.js';
import type { Fixture } from '../support/harness.js';

/** A shard under test and everything it was given, in order. */
export class TailHistory {
  /** Every row put, with its seq and offset: what a tail of the whole WAL yields. */
  readonly rows: TailRow[] = [];
  /** Seq range of each WAL position written. */
  readonly positions = new Map<number, { firstSeq: number; lastSeq: number }>();
  #nextOffset = 0;

  constructor(
    readonly f: Fixture,
    readonly shard = 's1',
  ) {}

  /**
   * Puts `rows` (keyed by `key` when given; `$delete: true` deletes); returns
   * the seq. A string is a row's JSON text, sent as it is (numbers no double holds).
   */
  async put(rows: Array<Record<string, unknown> | string>, key?: string): Promise<number> {
    const texts = rows.map((row) => (typeof row === 'string' ? row : JSON.stringify(row)));
    const keyText = key === undefined ? '' : `"key":${JSON.stringify(key)},`;
    const body = parsePutText(`{${keyText}"rows":[${texts.join(',')}]}`, 10_000);
    const { ack } = await putRows(this.f.put, {
      shard: this.shard,
      body,
      durability: 'buffered',
    });
    for (const row of body.rows) {
      this.rows.push({ seq: ack.seq, offset: this.#nextOffset++, ...row });
    }
    return ack.seq;
  }

  /** Flushes until nothing is pending; returns the positions written. */
  async flush(): Promise<number[]> {
    const written: number[] = [];
    for (;;) {
      const outcome = await flushShard(this.f.flushDeps('flusher'), this.shard);
      if (outcome.status !== 'flushed') return written;
      this.positions.set(outcome.position, {
        firstSeq: outcome.firstSeq,
        lastSeq: outcome.lastSeq,
      });
      written.push(outcome.position);
      if (!outcome.more) return written;
    }
  }

  /** Runs one export (and its retention) as the scheduled job would. */
  async export(): Promise<ExportReport> {
    return exportShard(exportDepsOf(this.f), this.shard);
  }

  /** The WAL position holding `seq`. */
  positionOf(seq: number): number {
    for (const [position, range] of this.positions) {
      if (seq >= range.firstSeq && seq <= range.lastSeq) return position;
    }
    throw new Error(`seq ${seq} is in no WAL object`);
  }

  /** What a tail yields from `fromSeq` when the WAL below `watermark` is read from an export. */
  expected(fromSeq: number, watermark: number): TailRow[] {
    return this.rows.filter(
      (row) =>
        row.seq >= fromSeq && (row.key === undefined || this.positionOf(row.seq) >= watermark),
    );
  }
}

/** Every row of `rows`. */
export async function collect(rows: AsyncIterable<TailRow>): Promise<TailRow[]> {
  const out: TailRow[] = [];
  for await (const row of rows) out.push(row);
  return out;
}

/** Collects notices. */
export function noticeLog(): { notices: TailNotice[]; onNotice: (n: TailNotice) => void } {
  const notices: TailNotice[] = [];
  return { notices, onNotice: (n) => void notices.push(n) };
}

/** Keyless rows `{n}` for `from..to-1`. */
export const keylessRows = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => ({ n: from + i }));

/** An `ObjectStore` that records the keys and prefixes it was asked for, by operation. */
export class RecordingStore implements ObjectStore {
  readonly requests: Array<{ op: 'get' | 'getStream' | 'list'; key: string }> = [];

  constructor(readonly inner: ObjectStore) {}

  putIfAbsent(key: string, body: Uint8Array) {
    return this.inner.putIfAbsent(key, body);
  }
  putStreamIfAbsent(key: string, body: AsyncIterable<Uint8Array>) {
    return this.inner.putStreamIfAbsent(key, body);
  }
  get(key: string) {
    this.requests.push({ op: 'get', key });
    return this.inner.get(key);
  }
  getStream(key: string) {
    this.requests.push({ op: 'getStream', key });
    return this.inner.getStream(key);
  }
  list(prefix: string, options?: ListOptions) {
    this.requests.push({ op: 'list', key: prefix });
    return this.inner.list(prefix, options);
  }
  delete(key: string) {
    return this.inner.delete(key);
  }

  /** Requests of `op` (all when undefined) whose key contains `part`. */
  count(op: 'get' | 'getStream' | 'list' | undefined, part = ''): number {
    return this.requests.filter((r) => (op === undefined || r.op === op) && r.key.includes(part))
      .length;
  }
}
