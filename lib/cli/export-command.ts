/**
 * `shardwal export <shard>` and `shardwal export --all`: archive new WAL
 * objects into segments and snapshot parts, write the manifest (the export)
 * and record its watermark (`exportShard` / `exportAll`, the
 * scheduled export function's code). Exit 1 when the shard's export `failed`
 * or was `skipped` (a poisoned shard, a record behind S3); `up-to-date`,
 * `exported` and `adopted` exit 0. With `--all`, exit 1 when any shard's did.
 */
import type { CliCommand } from './command.js';
import { REPORT_OPTIONS, TARGET_OPTIONS } from './options.js';

/** The export command: its declaration; the code runs from `export-run.ts`, loaded only when it runs. */
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
  run: (input, io) => import('./export-run.js').then((m) => m.runExport(input, io)),
};
