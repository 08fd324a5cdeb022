/** `shardwal recover`: what runs (the declaration, with its help, is `recover-command.ts`). */
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
import { booleanOption, type CliIo, type CommandInput } from './command.js';
import { UsageError } from './errors.js';
import type { JobDeps } from './job-deps.js';
import { type JobOutcome, runJob } from './job-run.js';
import { renderRejectedBatches } from './rejected-batches.js';
import { shardArgument } from './shard-argument.js';

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

/** Runs `shardwal recover` (declared in `recover-command.ts`). */
export async function runRecover(input: CommandInput, io: CliIo): Promise<number | undefined> {
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
}

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
