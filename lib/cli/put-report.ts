/**
 * What `shardwal put` counts and shows: the tally of settled batches, a
 * progress line on stderr (redrawn in place on a terminal; one plain line a
 * second with `--progress` elsewhere), and the summary at the end, readable
 * or as JSON.
 *
 *   put orders: 45,000/100,000 rows acked, 12,345 rows/s, 3 retried, 3.6 s
 */
import type { Writable } from 'node:stream';
import type { PutAck } from '../client/api-types.js';
import type { BatchOutcome } from '../client/producer.js';
import type { SqsAck } from '../client/sqs-batch-sender.js';
import { progressLine } from './progress-line.js';

const n = (value: number) => value.toLocaleString('en-US');

/** Counters the progress line and the summary read. */
export interface PutCounts {
  /** Rows in the input (non-blank lines). */
  rows: number;
  ackedRows: number;
  failedRows: number;
  /** Requests (or SQS sends) retried. */
  retries: number;
}

/** rows/s over `elapsedMs`. */
export function rowsPerSecond(rows: number, elapsedMs: number): number {
  return elapsedMs <= 0 ? 0 : Math.round((rows * 1000) / elapsedMs);
}

/** The text of the progress line. */
function putProgressText(shard: string, counts: PutCounts, elapsedMs: number): string {
  return (
    `put ${shard}: ${n(counts.ackedRows)}/${n(counts.rows)} rows acked, ` +
    `${n(rowsPerSecond(counts.ackedRows, elapsedMs))} rows/s, ${n(counts.retries)} retried` +
    (counts.failedRows > 0 ? `, ${n(counts.failedRows)} failed` : '') +
    `, ${(elapsedMs / 1000).toFixed(1)} s`
  );
}

/** A progress display: `update` as often as you like, `end` before printing the summary. */
export interface PutProgress {
  update: (counts: PutCounts) => void;
  end: () => void;
}

/** Progress on `stream`: on a terminal always, elsewhere only when `forced`. */
export function putProgress(
  stream: Writable,
  shard: string,
  options: { forced: boolean; now: () => number },
): PutProgress {
  const line = progressLine<PutCounts>(
    stream,
    (counts, elapsedMs) => putProgressText(shard, counts, elapsedMs),
    options,
  );
  return { update: line.show ?? (() => {}), end: line.end };
}

/** A batch that did not land. */
export interface PutFailure {
  batch: number;
  /** 1-based ordinal of its first row among the input's rows. */
  firstRow: number;
  /** Its line range in the input (1-based, inclusive). */
  firstLine: number;
  lastLine: number;
  rows: number;
  key: string;
  kind: string;
  message: string;
}

/** The outcome of one `shardwal put`. */
export interface PutSummary extends PutCounts {
  shard: string;
  transport: 'http' | 'sqs';
  target: string;
  /** The batch keys' prefix (`--import-id`, default `put`). */
  importId: string;
  batches: number;
  ackedBatches: number;
  /** Rows never sent (the run stopped at a failed batch of keyed rows). */
  unsentRows: number;
  /** Durable puts only: rows acked whose batch was not durable in time. */
  notDurableRows: number;
  /** The lowest and highest seq acked (HTTP only). */
  seqs: { first: number; last: number } | null;
  elapsedMs: number;
  rowsPerSecond: number;
  /** The first failures, in batch order. */
  failures: PutFailure[];
  ok: boolean;
}

/** The readable summary. */
export function summaryText(summary: PutSummary): string {
  const lines = [
    `put ${summary.shard}: ${n(summary.ackedRows)} of ${n(summary.rows)} rows acked ` +
      `in ${n(summary.ackedBatches)} of ${n(summary.batches)} batches, ` +
      `${n(summary.retries)} retried, ${(summary.elapsedMs / 1000).toFixed(1)} s, ` +
      `${n(summary.rowsPerSecond)} rows/s`,
    `  via ${summary.transport} ${summary.target}`,
  ];
  if (summary.seqs) lines.push(`  seqs ${summary.seqs.first}-${summary.seqs.last}`);
  if (summary.notDurableRows > 0) {
    lines.push(`  ${n(summary.notDurableRows)} acked rows are not durable yet`);
  }
  for (const failure of summary.failures) {
    lines.push(
      `  batch ${failure.batch} (lines ${n(failure.firstLine)}-${n(failure.lastLine)}, ` +
        `${n(failure.rows)} rows, key ${failure.key}) failed: ${failure.message}`,
    );
  }
  if (summary.unsentRows > 0) {
    lines.push(
      `  ${n(summary.unsentRows)} rows not sent: keyed rows stop at the first failed batch`,
    );
  }
  lines.push(
    summary.ok
      ? '  running it again lands nothing twice (within the idempotency window, 24 h by default)'
      : '  fix what failed and run the same command again: it lands only the batches that did' +
          ' not land (lines fixed in place keep this exact; see `shardwal put --help`)',
  );
  return `${lines.join('\n')}\n`;
}

/** Tracks outcomes while sending. */
export class PutTally {
  readonly counts: PutCounts;
  readonly failures: PutFailure[] = [];
  readonly notDurable: { seq: number; rows: number }[] = [];
  seqs: { first: number; last: number } | null = null;
  ackedBatches = 0;
  batches = 0;

  constructor(rows: number) {
    this.counts = { rows, ackedRows: 0, failedRows: 0, retries: 0 };
  }

  /** Counts one settled batch; a durable put acked before its tick is kept to wait for. */
  onBatch(
    outcome: BatchOutcome<PutAck | SqsAck>,
    settings: { durable: boolean },
    lines: { firstLine: number; lastLine: number } | undefined,
  ): void {
    const { batch } = outcome;
    const rows = batch.rowTexts.length;
    if (outcome.error) {
      this.counts.failedRows += rows;
      this.failures.push({
        batch: batch.index,
        firstRow: batch.firstRow + 1,
        firstLine: lines?.firstLine ?? 0,
        lastLine: lines?.lastLine ?? 0,
        rows,
        key: batch.key,
        kind: outcome.error.kind,
        message: outcome.error.message,
      });
      return;
    }
    this.ackedBatches++;
    this.counts.ackedRows += rows;
    const ack = outcome.ack;
    if ('seq' in ack) {
      this.seqs = {
        first: Math.min(this.seqs?.first ?? ack.seq, ack.seq),
        last: Math.max(this.seqs?.last ?? ack.seq, ack.seq),
      };
      if (settings.durable && !ack.durable) this.notDurable.push({ seq: ack.seq, rows });
    }
  }
}
