/** Readable text of the export reports, for a terminal (JSON: `reportJson`). */
import type { ExportAllReport } from './export-all.js';
import type { ExportReport } from './export-report.js';

const n = (value: number) => value.toLocaleString('en-US');
const line = (label: string, text: string) => `  ${label.padEnd(11)} ${text}`;

/** Text of one export report. */
export function renderExportReport(report: ExportReport): string {
  const out = [
    `export shard ${report.shard}: ${report.status.toUpperCase()} in ${(report.durationMs / 1000).toFixed(2)} s`,
  ];
  if (report.reason)
    out.push(line(report.status === 'failed' ? 'REASON' : 'reason', report.reason));
  for (const warning of report.warnings) out.push(line('WARNING', warning));
  if (report.key) out.push(line('manifest', `${report.key} (${n(report.bytes)} bytes written)`));
  out.push(
    line(
      'base',
      report.base
        ? `${report.base.key}${report.base.kind === 'aof' ? ' (legacy AOF export, converted)' : ''}`
        : 'none: folded from WAL position 0',
    ),
  );
  for (const f of report.fallbacks)
    out.push(line('FALLBACK', `${f.key} passed over: ${f.error.name}: ${f.error.message}`));
  const f = report.folded;
  if (f) {
    out.push(
      line(
        'folded',
        `positions ${f.fromPosition}..${f.toPosition - 1} (${n(f.objects)} objects, ${n(f.walRows)} rows: ${n(f.puts)} puts, ${n(f.deletes)} deletes, ${n(f.keyless)} keyless)${f.exportRows > 0 ? ` after ${n(f.exportRows)} legacy export rows` : ''}`,
      ),
    );
  }
  const w = report.writes;
  if (w) {
    out.push(
      line(
        'stored',
        `${n(w.segments)} segment(s), ${n(w.parts)} snapshot part(s)${w.compacted ? ' (compacted)' : ''}${w.tableSegments > 0 ? `; listed ${n(w.tableSegments)} table segment(s) (rows the table holds)` : ''}; reused ${n(w.adoptedSegments)} segment(s), ${n(w.adoptedParts)} part(s) left by an earlier run`,
      ),
    );
  }
  if (report.stoppedAt)
    out.push(
      line(
        'STOPPED',
        `at position ${report.stoppedAt.position} (${report.stoppedAt.key}): ${report.stoppedAt.detail}`,
      ),
    );
  if (report.status === 'exported' || report.status === 'adopted') {
    const keys =
      report.liveKeys === null
        ? 'live keys not counted (no compaction)'
        : `${n(report.liveKeys)} live keys`;
    const floor =
      report.historyFloor > 0 ? `, history kept from position ${report.historyFloor}` : '';
    out.push(
      line(
        'state',
        `${keys}; ${n(report.parts)} snapshot part(s); ${n(report.keylessRows)} keyless rows in ${n(report.segments)} segment(s)${floor}`,
      ),
    );
  }
  out.push(
    line(
      'watermark',
      report.watermark.before === report.watermark.after
        ? String(report.watermark.after)
        : `${report.watermark.before} → ${report.watermark.after}`,
    ),
  );
  const r = report.retention;
  if (r) {
    const parts = [
      r.retired.length > 0 ? `retired export(s) at ${r.retired.join(', ')}` : undefined,
      r.deletedParts + r.deletedSegments > 0
        ? `${n(r.deletedParts)} part(s) and ${n(r.deletedSegments)} segment(s) with them`
        : undefined,
      r.orphans.parts + r.orphans.segments > 0
        ? `${n(r.orphans.parts)} orphan part(s), ${n(r.orphans.segments)} orphan segment(s)`
        : undefined,
      r.wal.deleted > 0
        ? `${n(r.wal.deleted)} WAL object(s), positions ${r.wal.fromPosition}..${r.wal.toPosition}`
        : undefined,
    ].filter((part) => part !== undefined);
    out.push(
      line(
        'retention',
        parts.length > 0 ? parts.join('; ') : `nothing retired${r.note ? `: ${r.note}` : ''}`,
      ),
    );
    for (const key of r.invalid) out.push(line('INVALID', `${key} does not verify; left in place`));
  }
  return out.join('\n');
}

/** Text of a scheduled run: a summary, then every shard that did something. */
export function renderExportAllReport(report: ExportAllReport): string {
  const out = [
    `export all: ${n(report.shards)} shards, ${n(report.due)} due, ${report.failed.length} threw, ${report.deferred.length} deferred in ${(report.durationMs / 1000).toFixed(2)} s`,
  ];
  for (const shard of report.reports) out.push('', renderExportReport(shard));
  for (const failed of report.failed)
    out.push(line('FAILED', `${failed.shard}: ${failed.error.name}: ${failed.error.message}`));
  if (report.deferred.length > 0) out.push(line('deferred', report.deferred.join(', ')));
  return out.join('\n');
}
