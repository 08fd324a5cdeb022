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
  if (report.key) out.push(line('export', `${report.key} (${n(report.bytes)} bytes)`));
  out.push(line('base', report.base ? report.base.key : 'none: folded from WAL position 0'));
  for (const f of report.fallbacks)
    out.push(line('FALLBACK', `${f.key} passed over: ${f.error.name}: ${f.error.message}`));
  const f = report.folded;
  if (f) {
    out.push(
      line(
        'folded',
        `positions ${f.fromPosition}..${f.toPosition - 1} (${n(f.objects)} objects, ${n(f.walRows)} rows: ${n(f.puts)} puts, ${n(f.deletes)} deletes, ${n(f.keyless)} keyless) onto ${n(f.exportRows)} export rows`,
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
    out.push(
      line('state', `${n(report.liveKeys)} live keys, ${n(report.keylessRows)} keyless rows`),
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
    out.push(
      line(
        'retention',
        r.deleted > 0
          ? `retired ${n(r.deleted)} WAL object(s), positions ${r.fromPosition}..${r.toPosition} (floor ${r.floor})`
          : `nothing retired${r.note ? `: ${r.note}` : ''}`,
      ),
    );
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
