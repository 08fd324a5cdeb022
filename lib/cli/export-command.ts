/**
 * `shardwal export <shard>` and `shardwal export --all`: archive new WAL
 * objects into segments and snapshot parts, write the manifest (the export)
 * and record its watermark (`exportShard` / `exportAll`, the
 * scheduled export function's code). Exit 1 when the shard's export `failed`
 * or was `skipped` (a poisoned shard, a record behind S3); `up-to-date`,
 * `exported` and `adopted` exit 0. With `--all`, exit 1 when any shard's did.
 */

import { exportAll } from '../export/export-all.js';
import { type ExportReport, ExportStatus } from '../export/export-report.js';
import { exportShard } from '../export/export-shard.js';
import { renderExportAllReport, renderExportReport } from '../export/render.js';
import { booleanOption, type CliCommand } from './command.js';
import { UsageError } from './errors.js';
import { REPORT_OPTIONS, runJob } from './job-run.js';
import { shardArgument } from './shard-argument.js';
import { TARGET_OPTIONS } from './target.js';

const exported = (report: ExportReport) =>
  report.status !== ExportStatus.failed && report.status !== ExportStatus.skipped;

/** The export command. */
export const exportCommand: CliCommand = {
  name: 'export',
  args: ['[shard]'],
  summary: "archive a shard's new WAL into a new export (or --all: every shard that advanced)",
  description:
    'Runs what the scheduled export function runs, against the local data folder (running or\n' +
    'stopped) or AWS (--table and --bucket together). Only committed WAL positions are read:\n' +
    'keyless rows go to new segments, keyed changes to a snapshot delta (compacted when due),\n' +
    'and a manifest naming them is written create-if-absent, then its watermark recorded.\n' +
    'Retention keeps the newest two exports and the WAL after the second newest; older\n' +
    'exports, orphans and WAL go after SHARDWAL_EXPORT_RETENTION_MS / SHARDWAL_WAL_RETENTION_MS\n' +
    '(default 7 days each), segments after SHARDWAL_HISTORY_RETENTION_MS (0: never), unless\n' +
    '--no-retention. Exit 1 when an export failed or was skipped.',
  options: {
    ...TARGET_OPTIONS,
    all: {
      type: 'boolean',
      description: 'export every shard whose WAL advanced past its watermark',
    },
    'no-retention': { type: 'boolean', description: 'retire nothing in this run' },
    ...REPORT_OPTIONS,
  },
  async run(input, io) {
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
  },
};
