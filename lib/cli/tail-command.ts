/**
 * `shardwal tail <shard> [--from <seq|end>] [--follow]`: a shard's durable
 * rows in order, as JSON Lines in the shape of `shardwal dump`
 * (`{"seq","offset","key"?,"delete"?,"row"?}`, key and row exactly as put),
 * through the client's reader (`lib/client/reader`): the export's segments
 * below the watermark, the WAL above it, then, with `--follow`, each new
 * WAL object as it is written, until Ctrl-C. Rows go to stdout; notes (the
 * export read, what is not history, a fallback) to stderr.
 *
 * Output is written in batches, as the reader hands them over
 * (`tailShardBatches`): the rows of one WAL object, or a few thousand of a
 * segment, in one write, as soon as they are read.
 */
import type { CliCommand } from './command.js';

/** The tail command: its declaration; the code runs from `tail-run.ts`, loaded only when it runs. */
export const tailCommand: CliCommand = {
  name: 'tail',
  args: ['<shard>'],
  summary: "print a shard's durable rows in order as JSON Lines; --follow for new ones",
  description:
    'Each line: {"seq","offset","key"?,"delete"?,"row"?}, as `shardwal dump` prints it, in offset\n' +
    'order, from --from <seq> (default: the oldest kept row). Below the export watermark the\n' +
    "rows come from the export's segments: keyless rows only, since the export keeps keyed\n" +
    'state, not keyed history (a note says so when keyed rows were put); above it every row of\n' +
    'the WAL. A seq below the history floor is an error naming the floor. -f/--follow waits\n' +
    'for new WAL objects (one GET of the next position per poll, backing off from --poll-ms to\n' +
    '8 s) until Ctrl-C; --from end prints only rows written after it started. Reads only the\n' +
    'object store: the local data folder, or the S3 bucket given with --bucket (--table,\n' +
    'optional, to check the shard exists). Every object is verified before its rows are\n' +
    'printed; a corrupt one stops the tail with an error naming it.',
  options: {
    from: {
      type: 'string',
      value: '<seq|end>',
      description: 'first seq to print, or "end" for only new rows (default: the oldest kept)',
    },
    follow: {
      type: 'boolean',
      short: 'f',
      description: 'keep printing new rows as WAL objects are written, until Ctrl-C',
    },
    'poll-ms': {
      type: 'string',
      value: '<ms>',
      description: 'wait after the first miss at the end (default 1000; doubles up to 8000)',
    },
    'data-dir': {
      type: 'string',
      value: '<dir>',
      description: 'local data folder (default: $SHARDWAL_DATA_DIR or ./.shardwal)',
    },
    bucket: {
      type: 'string',
      value: '<name>',
      description: 'read the S3 bucket <name> in AWS instead of the local data folder',
    },
    table: {
      type: 'string',
      value: '<name>',
      description: 'with --bucket: the DynamoDB table, to check the shard exists',
    },
    region: {
      type: 'string',
      value: '<region>',
      description: 'AWS region of the bucket and table (default: the SDK’s)',
    },
  },
  run: (input, io) => import('./tail-run.js').then((m) => m.runTailUntilInterrupted(input, io)),
};
