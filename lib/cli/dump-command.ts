/**
 * `shardwal dump <shard>`: the shard's durable rows as JSON Lines, one row per
 * line: `{"seq","offset","key"?,"delete"?,"row"?}` (a delete has no `row`).
 *
 * Like recovery, it starts from the newest export that verifies (a manifest,
 * or a legacy AOF export; WAL objects below it may be retired) and prints its
 * rows first — the live keyed rows by key (the snapshot), then the keyless
 * rows by offset (the segments, from the history floor), each with the seq
 * and offset it was put with — then the WAL after it in order, through the
 * WAL reader. With no export it prints the whole WAL. A note on stderr says
 * which export was used, and where kept history starts when history
 * retention dropped older segments. `--wal-only` prints only the WAL objects
 * from the watermark.
 *
 * With the table at hand (always locally; `--table` in AWS) the dump stops
 * before `walNextPos`, so it shows exactly the committed WAL. Without it,
 * every WAL object listed is read.
 */
import type { CliCommand } from './command.js';
import { TARGET_OPTIONS } from './options.js';

/** The dump command: its declaration; the code runs from `dump-run.ts`, loaded only when it runs. */
export const dumpCommand: CliCommand = {
  name: 'dump',
  args: ['<shard>'],
  summary: "print a shard's durable rows (export, then WAL tail) as JSON Lines",
  description:
    'Each line: {"seq","offset","key"?,"delete"?,"row"?}. Starts from the newest export that\n' +
    'verifies (its live keyed rows by key, then its keyless rows by offset, each with the seq\n' +
    'and offset it was put with), then the WAL after it in order; stderr names the export.\n' +
    'Reads the local data folder (running or stopped), or the S3 bucket given with --bucket;\n' +
    'add --table to bound the dump by the shard record as the local dump is. Every object is\n' +
    'verified before its rows are printed; a corrupt or missing object stops the dump with an\n' +
    'error naming it.',
  options: {
    ...TARGET_OPTIONS,
    'wal-only': {
      type: 'boolean',
      description: 'print only the WAL objects from the watermark (no export rows)',
    },
  },
  run: (input, io) => import('./dump-run.js').then((m) => m.runDump(input, io)),
};
