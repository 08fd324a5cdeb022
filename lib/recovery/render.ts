/**
 * Readable text of the verify and rebuild reports, for a terminal. The JSON
 * form is the report object itself (`reportJson`); this is the same content,
 * laid out for a person, with the loud parts (warnings, stops, rejected rows)
 * in capitals so they are not missed.
 */

import type { CursorSnapshot } from '../memtable/shard-record.js';
import { rowJson } from '../rows/row.js';
import type { RebuildReport } from './rebuild-report.js';
import type { VerifyReport } from './verify.js';
import type { VerifyAllReport } from './verify-all.js';

/** A report as JSON text (what `--json` prints). */
export function reportJson(report: object): string {
  return JSON.stringify(report, null, 2);
}

const n = (value: number) => value.toLocaleString('en-US');
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const line = (label: string, text: string) => `  ${label.padEnd(11)} ${text}`;

/** Text of one verify report. */
export function renderVerifyReport(report: VerifyReport): string {
  const out = [
    `verify shard ${report.shard}: ${report.ok ? 'OK' : `${report.findings.length} FINDING(S)`} in ${seconds(report.durationMs)}`,
  ];
  if (report.exportChecked) {
    const how = !report.exportChecked.valid
      ? 'INVALID'
      : report.exportChecked.full
        ? 'verified whole'
        : 'header read';
    out.push(line('export', `${report.exportChecked.key} (${how})`));
  }
  const wal = report.walChecked;
  out.push(
    line(
      'wal',
      wal.toPosition > wal.fromPosition
        ? `positions ${wal.fromPosition}..${wal.toPosition - 1} (${n(wal.objects)} objects, ${n(wal.rows)} rows)`
        : `no WAL objects from position ${wal.fromPosition}`,
    ),
  );
  if (report.pendingAppend !== null) {
    out.push(
      line(
        'pending',
        `a valid append at position ${report.pendingAppend} awaits its commit (the next flush adopts it)`,
      ),
    );
  }
  for (const f of report.findings) {
    out.push(
      line('FINDING', `${f.kind}${f.position === undefined ? '' : ` @${f.position}`}: ${f.detail}`),
    );
  }
  for (const h of report.heals) out.push(line('healed', `${h.kind}: ${h.detail}`));
  if (report.record) out.push(...cursorLines(report.record));
  return out.join('\n');
}

/** Text of a run over every shard: a summary, then each shard with a finding or a heal. */
export function renderVerifyAllReport(report: VerifyAllReport): string {
  const out = [
    `verify all: ${n(report.shards)} shards, ${n(report.ok)} OK, ${n(report.findings)} finding(s), ${n(report.heals)} heal(s), ${report.failed.length} failed, ${report.skipped.length} skipped in ${seconds(report.durationMs)}`,
  ];
  for (const shard of report.reports) {
    if (!shard.ok || shard.heals.length > 0) out.push('', renderVerifyReport(shard));
  }
  for (const failed of report.failed)
    out.push(line('FAILED', `${failed.shard}: ${failed.error.name}: ${failed.error.message}`));
  for (const f of report.tables?.findings ?? []) {
    out.push(line('FINDING', `table ${f.table}: ${f.kind}: ${f.detail}`));
  }
  for (const failed of report.tables?.failed ?? []) {
    out.push(
      line('FAILED', `table ${failed.table}: ${failed.error.name}: ${failed.error.message}`),
    );
  }
  if (report.skipped.length > 0) out.push(line('skipped', report.skipped.join(', ')));
  return out.join('\n');
}

/** Text of one rebuild report. */
export function renderRebuildReport(report: RebuildReport): string {
  const out = [
    `rebuild shard ${report.shard}: ${report.status.toUpperCase()} in ${seconds(report.durationMs)}`,
  ];
  for (const warning of report.warnings) out.push(line('WARNING', warning));
  const used = report.export;
  out.push(
    line(
      'export',
      used
        ? `${used.key} (${used.kind === 'aof' ? 'legacy AOF export; ' : ''}covers positions < ${used.coveredPosition}, seqs ≤ ${used.lastSeq}; ${n(used.keylessRows)} keyless rows${used.historyFloor > 0 ? ` kept from position ${used.historyFloor}` : ''})`
        : 'none: the whole WAL was replayed',
    ),
  );
  for (const f of report.fallbacks)
    out.push(line('FALLBACK', `${f.key} passed over: ${f.error.name}: ${f.error.message}`));
  const r = report.replayed;
  const span =
    r.toPosition > r.fromPosition
      ? `positions ${r.fromPosition}..${r.toPosition - 1}`
      : `no WAL objects after position ${r.fromPosition}`;
  out.push(
    line(
      'replayed',
      `${span} (${n(r.objects)} objects, ${n(r.walRows)} rows) after ${n(r.exportRows)} export rows`,
    ),
  );
  const keys =
    report.liveKeys === null
      ? 'live keys not counted (the snapshot is not read: rebuild needs only the cursors)'
      : `${n(report.liveKeys)} live keys`;
  out.push(line('state', `${keys}, ${n(report.keylessRows)} keyless rows`));
  if (report.stoppedAt) {
    const s = report.stoppedAt;
    out.push(line('STOPPED', `at position ${s.position} (${s.key}): ${s.reason}: ${s.detail}`));
    out.push(
      line(
        '',
        `${n(report.skippedObjects)} object(s) at or beyond it not replayed; nothing was reset`,
      ),
    );
  }
  const b = report.batches;
  if (b) {
    const pending =
      b.pending.batches > 0
        ? `, ${n(b.pending.batches)} pending (seqs ${b.pending.fromSeq}..${b.pending.toSeq}, ${n(b.pending.bytes)} bytes)`
        : ', none pending';
    out.push(line('batches', `${n(b.covered)} batch(es) already in S3${pending}`));
    if (b.sealed.length > 0)
      out.push(
        line(
          'sealed',
          `seqs ${b.sealed.join(', ')} sealed void (a late put there now fails, a takeover reads them as not landed)`,
        ),
      );
    for (const rejected of b.rejected) {
      out.push(
        line(
          'REJECTED',
          `seq ${rejected.seq}: ${n(rejected.rowCount)} row(s): ${rejected.reason}; quarantined at ${rejected.quarantineKey}`,
        ),
      );
      for (const row of rejected.rows) out.push(line('', rowJson(row)));
      if (rejected.rowsShown < rejected.rowCount)
        out.push(
          line('', `... ${n(rejected.rowCount - rejected.rowsShown)} more in the quarantine`),
        );
    }
    if (b.lost) {
      out.push(
        line(
          'LOST',
          `seqs ${b.lost.fromSeq}..${b.lost.toSeq} were acked durable but S3 does not hold them; ${n(b.lost.missing)} had no batch item left and were sealed void`,
        ),
      );
    }
  }
  const { before, after } = report.cursors;
  if (before || after) out.push(...cursorLines(before, after));
  return out.join('\n');
}

const CURSOR_FIELDS = [
  'nextSeq',
  'durableSeq',
  'walNextPos',
  'nextRowOffset',
  'bufferedBytes',
  'epoch',
  'generation',
  'aofWatermark',
  'pending',
  'poison',
] as const;

function cursorLines(before: CursorSnapshot | null, after?: CursorSnapshot | null): string[] {
  const out = [line('cursors', after === undefined ? '' : 'before → after')];
  for (const field of CURSOR_FIELDS) {
    const was = before ? String(before[field] ?? '-') : '-';
    if (after === undefined) {
      out.push(`    ${field.padEnd(14)} ${was}`);
      continue;
    }
    const now = after ? String(after[field] ?? '-') : '(unchanged)';
    out.push(`    ${field.padEnd(14)} ${was}${was === now ? '' : ` → ${now}`}`);
  }
  return out;
}
