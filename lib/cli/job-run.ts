/**
 * What `export` and `recover` share: the target (both the table and the
 * store), the library's dependencies, progress on stderr, the report on
 * stdout (readable text, or `--json`), and the exit code the report implies.
 *
 * While the job runs the library's structured log lines are off unless
 * `SHARDWAL_LOG_LEVEL` asks for them: the report says everything they say,
 * and on a terminal they would break the progress line.
 */
import { logger } from '../observability/telemetry.js';
import type { ProgressListener } from '../recovery/progress.js';
import { reportJson } from '../recovery/render.js';
import { booleanOption, type CliIo, type CommandInput, ExitCode } from './command.js';
import { type JobDeps, jobDeps } from './job-deps.js';
import { writeText } from './output.js';
import { progressDisplay } from './progress.js';
import { openTarget, requireStore, requireTable } from './target.js';

/** What a job resolves to. */
export interface JobOutcome {
  /** The readable report. */
  text: string;
  /** What `--json` prints. */
  json: object;
  /** False: exit 1. */
  ok: boolean;
}

/** Runs `job` against the target `input` names; prints its report; resolves with the exit code. */
export async function runJob(
  input: CommandInput,
  io: CliIo,
  names: { command: string; job: string; createLostTable?: boolean },
  job: (deps: JobDeps, onProgress: ProgressListener | undefined) => Promise<JobOutcome>,
): Promise<number> {
  const target = await openTarget(input, io, { createLostTable: names.createLostTable });
  const display = progressDisplay(io.stderr, names.job, {
    forced: booleanOption(input, 'progress'),
  });
  const restoreLogs = quietLibraryLogs(io.env);
  try {
    const table = requireTable(target, names.command);
    const store = requireStore(target, names.command);
    const outcome = await job(jobDeps(table, store, io.env), display.listener);
    display.end();
    await writeText(
      io.stdout,
      `${booleanOption(input, 'json') ? reportJson(outcome.json) : outcome.text}\n`,
    );
    return outcome.ok ? ExitCode.ok : ExitCode.failure;
  } finally {
    display.end();
    restoreLogs();
    await target.close();
  }
}

/** Turns the library's log lines off for a run, unless SHARDWAL_LOG_LEVEL is set; returns the undo. */
function quietLibraryLogs(env: NodeJS.ProcessEnv): () => void {
  if (env.SHARDWAL_LOG_LEVEL) return () => {};
  const previous = logger.getLevelName();
  logger.setLogLevel('SILENT');
  return () => logger.setLogLevel(previous);
}
