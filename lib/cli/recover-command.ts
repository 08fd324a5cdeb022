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
import { listRejectedBatches } from '../memtable/quarantine.js';
import type { ProgressListener } from '../recovery/progress.js';
import { rebuildShard } from '../recovery/rebuild.js';
import {
  renderRebuildReport,
  renderVerifyAllReport,
  renderVerifyReport,
} from '../recovery/render.js';
import { verifyShard } from '../recovery/verify.js';
import { verifyAll } from '../recovery/verify-all.js';
import { booleanOption, type CliCommand, type CommandInput } from './command.js';
import { UsageError } from './errors.js';
import type { JobDeps } from './job-deps.js';
import { type JobOutcome, REPORT_OPTIONS, runJob } from './job-run.js';
import { renderRejectedBatches } from './rejected-batches.js';
import { shardArgument } from './shard-argument.js';
import { TARGET_OPTIONS } from './target.js';

/** What the flags ask for, checked before anything is opened. */
type Request =
  | { mode: 'verify'; shard: string; heal: boolean }
  | { mode: 'verify-all'; heal: boolean }
  | { mode: 'rebuild'; shard: string; useExport: boolean };

function parseRequest(input: CommandInput): Request {
  const verify = booleanOption(input, 'verify');
  const all = booleanOption(input, 'all');
  const heal = booleanOption(input, 'heal');
  const noExport = booleanOption(input, 'no-export');
  if (all && !verify) {
    throw new UsageError('--all verifies every shard: add --verify (a rebuild takes one shard)');
  }
  if (heal && !verify) throw new UsageError('--heal applies to --verify only');
  if (noExport && verify) throw new UsageError('--no-export applies to a rebuild only');
  if (all && input.args.length > 0) throw new UsageError('give a shard or --all, not both');
  if (all) return { mode: 'verify-all', heal };
  if (input.args.length === 0) throw new UsageError('missing <shard> (or --verify --all)');
  const shard = shardArgument(input);
  return verify
    ? { mode: 'verify', shard, heal }
    : { mode: 'rebuild', shard, useExport: !noExport };
}

/** The recover command. */
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
  async run(input, io) {
    const request = parseRequest(input);
    const job = request.mode === 'rebuild' ? 'rebuild' : 'verify';
    // A rebuild restores a local folder whose DynamoDB state is gone from its object store alone.
    const createLostTable = request.mode === 'rebuild';
    return runJob(
      input,
      io,
      { command: 'recover', job, createLostTable },
      async (deps, onProgress) => {
        const { recoveryDeps } = deps;
        switch (request.mode) {
          case 'verify': {
            const report = await verifyShard(recoveryDeps, request.shard, {
              heal: request.heal,
              onProgress,
            });
            return { text: renderVerifyReport(report), json: report, ok: report.ok };
          }
          case 'verify-all': {
            const report = await verifyAll(recoveryDeps, { heal: request.heal, onProgress });
            const ok = report.findings === 0 && report.failed.length === 0;
            return { text: renderVerifyAllReport(report), json: report, ok };
          }
          case 'rebuild':
            return rebuild(deps, request.shard, request.useExport, onProgress);
        }
      },
    );
  },
};

async function rebuild(
  deps: JobDeps,
  shard: string,
  useExport: boolean,
  onProgress: ProgressListener | undefined,
): Promise<JobOutcome> {
  const report = await rebuildShard(deps.recoveryDeps, shard, { useExport, onProgress });
  const quarantined = await listRejectedBatches(deps.recoveryDeps.table, shard);
  const text = [renderRebuildReport(report), renderRejectedBatches(shard, quarantined)]
    .filter((part) => part !== '')
    .join('\n\n');
  return { text, json: { ...report, quarantined }, ok: report.status === 'rebuilt' };
}
