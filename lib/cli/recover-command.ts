/**
 * `shardwal recover`: the recovery function's modes from the command line.
 *
 *   recover <shard> --verify      verify one shard (`verifyShard`); exit 1 on any finding
 *   recover --verify --all        verify every shard (`verifyAll`, what the scheduled job
 *                                 runs); exit 1 on any finding or a shard that failed
 *   recover <shard>               rebuild the shard (`rebuildShard`); exit 1 unless rebuilt
 *
 * Healing: the library and the scheduled job apply the provably safe heals
 * (expired leases, aged gaps, the takeover of a rebuild that died after its
 * fence) by default; from the CLI a verify only reads
 * unless `--heal` is given, so looking never changes anything.
 */
import type { CliCommand } from './command.js';
import { REPORT_OPTIONS, TARGET_OPTIONS } from './options.js';

/** The recover command: its declaration; the code runs from `recover-run.ts`, loaded only when it runs. */
export const recoverCommand: CliCommand = {
  name: 'recover',
  args: ['[shard]'],
  summary: 'rebuild a shard from its export and WAL tail, or --verify one (or --all) against S3',
  description:
    'Without --verify: rebuild <shard> from its newest valid export plus the WAL after it,\n' +
    'fence it, reset its cursors to what S3 proves and clear its poison; rejected batches in the\n' +
    'quarantine are listed. Exit 1 unless rebuilt (a stop names the object and why).\n' +
    'With --verify: check the WAL chain after the watermark and the record against S3; exit 1\n' +
    'on any finding. Read-only unless --heal (the scheduled job heals expired leases and aged\n' +
    'gaps, and finishes a rebuild that died after its fence; so does --heal).\n' +
    'Works against the local data folder (running or stopped) or AWS\n' +
    '(--table and --bucket together). A local folder whose DynamoDB state is gone (only the\n' +
    'object store left) gets a new table, and the rebuild restores the shard into it.',
  options: {
    ...TARGET_OPTIONS,
    verify: { type: 'boolean', description: 'verify instead of rebuilding' },
    all: { type: 'boolean', description: 'with --verify: every shard (the scheduled job)' },
    heal: {
      type: 'boolean',
      description:
        'with --verify: apply the provably safe heals (expired leases, aged gaps, a rebuild that died after its fence)',
    },
    'no-export': {
      type: 'boolean',
      description: 'rebuild from the whole WAL, ignoring exports (needs WAL objects never retired)',
    },
    ...REPORT_OPTIONS,
  },
  run: (input, io) => import('./recover-run.js').then((m) => m.runRecover(input, io)),
};
