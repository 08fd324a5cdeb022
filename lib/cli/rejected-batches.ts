/**
 * The quarantine of a shard as the `recover` command shows it after a
 * rebuild: every batch a rebuild (this one or an earlier one) rejected
 * because S3 already held other content at its seq (`listRejectedBatches`).
 * They stay until an operator re-puts what should be kept; the text shows a
 * few rows of each, `--json` every row.
 */
import type { RejectedBatch } from '../memtable/quarantine.js';
import { rowJson } from '../rows/row.js';

/** Rows of each batch the text shows. */
const ROWS_SHOWN = 5;

const n = (value: number) => value.toLocaleString('en-US');
const line = (label: string, text: string) => `  ${label.padEnd(11)} ${text}`;

/** Text of the quarantine; empty when nothing is held. */
export function renderRejectedBatches(shard: string, batches: readonly RejectedBatch[]): string {
  if (batches.length === 0) return '';
  const rows = batches.reduce((sum, batch) => sum + batch.rows.length, 0);
  const out = [
    `quarantine of shard ${shard}: ${n(batches.length)} rejected batch(es), ${n(rows)} row(s) held for an operator to re-put (--json lists every row)`,
  ];
  for (const batch of batches) {
    const key = batch.idempotencyKey ? `, idempotency key ${batch.idempotencyKey}` : '';
    out.push(
      line(
        'QUARANTINED',
        `seq ${batch.seq} (generation ${batch.generation}, rejected ${new Date(batch.rejectedAtMs).toISOString()}): ${n(batch.rows.length)} row(s)${key}: ${batch.reason}`,
      ),
    );
    for (const row of batch.rows.slice(0, ROWS_SHOWN)) out.push(line('', rowJson(row)));
    if (batch.rows.length > ROWS_SHOWN)
      out.push(line('', `... ${n(batch.rows.length - ROWS_SHOWN)} more`));
  }
  return out.join('\n');
}
