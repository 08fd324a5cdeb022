/** `shardwal export`: what runs (the declaration, with its help, is `export-command.ts`). */
import { exportAll } from '../export/export-all.js';
import { type ExportReport, ExportStatus } from '../export/export-report.js';
import { exportShard } from '../export/export-shard.js';
import { renderExportAllReport, renderExportReport } from '../export/render.js';
import { booleanOption, type CliIo, type CommandInput } from './command.js';
import { UsageError } from './errors.js';
import { runJob } from './job-run.js';
import { shardArgument } from './shard-argument.js';

const exported = (report: ExportReport) =>
  report.status !== ExportStatus.failed && report.status !== ExportStatus.skipped;

/** Runs `shardwal export` (declared in `export-command.ts`). */
export async function runExport(input: CommandInput, io: CliIo): Promise<number | undefined> {
  const all = booleanOption(input, 'all');
  if (all && input.args.length > 0) throw new UsageError('give a shard or --all, not both');
  if (!all && input.args.length === 0) throw new UsageError('missing <shard> (or --all)');
  const shard = all ? undefined : shardArgument(input);
  const retention = !booleanOption(input, 'no-retention');
  return runJob(input, io, { command: 'export', job: 'export' }, async (deps, onProgress) => {
    if (shard === undefined) {
      const report = await exportAll(deps.exportDeps, { retention, onProgress });
      const ok = report.failed.length === 0 && report.reports.every(exported);
      return { text: renderExportAllReport(report), json: report, ok };
    }
    const report = await exportShard(deps.exportDeps, shard, { retention, onProgress });
    return { text: renderExportReport(report), json: report, ok: exported(report) };
  });
}
