/**
 * `shardwal start`: runs the local stack in the foreground until SIGINT or
 * SIGTERM, then stops it (final flush) and exits 0. Settings come from the
 * environment (`PORT`, `SHARDWAL_DATA_DIR`, `SHARDWAL_FLUSH_INTERVAL_MS`, …;
 * see `lib/local/local-settings.ts`). A second signal while stopping exits at
 * once with 130: buffered rows stay in the persisted memtable and are flushed
 * on the next start.
 */
import { dataDirLayout } from '../local/data-dir.js';
import { StackRunningError } from '../local/errors.js';
import { localSettingsFromEnv } from '../local/local-settings.js';
import { findRunningStack } from '../local/stack-file.js';
import { booleanOption, type CliCommand, stringOption } from './command.js';
import { writeText } from './output.js';

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/** The first SIGINT/SIGTERM from now on; `cancel` stops listening. */
function nextSignal(): { received: Promise<NodeJS.Signals>; cancel: () => void } {
  let cancel = () => {};
  const received = new Promise<NodeJS.Signals>((resolve) => {
    const handlers = SIGNALS.map((signal) => () => {
      cancel();
      resolve(signal);
    });
    cancel = () => {
      SIGNALS.forEach((s, i) => {
        process.off(s, handlers[i]!);
      });
    };
    SIGNALS.forEach((s, i) => {
      process.on(s, handlers[i]!);
    });
  });
  return { received, cancel };
}

/** The start command. */
export const startCommand: CliCommand = {
  name: 'start',
  args: [],
  summary: 'run the whole service locally (HTTP API, SQS, ticker) until Ctrl-C',
  description:
    'Environment: PORT (HTTP, default 3000), SHARDWAL_DATA_DIR (default ./.shardwal),\n' +
    'SHARDWAL_FLUSH_INTERVAL_MS (any interval a deployment accepts, default 1000),\n' +
    'SHARDWAL_DYNAMODB_PORT (default PORT+1), SHARDWAL_SQS_PORT (default PORT+2),\n' +
    'SHARDWAL_LOG_LEVEL (default WARN), SHARDWAL_LOCAL_EXPORT_EVERY_MS (the export job,\n' +
    'default 300000) and SHARDWAL_LOCAL_VERIFY_EVERY_MS (the scheduled verify of every\n' +
    'shard, default 3600000; either can be off), and every SHARDWAL_* service setting.\n' +
    'Writes <data-dir>/stack.json while it runs; stopping waits for a running job, then flushes.',
  options: {
    'data-dir': {
      type: 'string',
      value: '<dir>',
      description: 'data folder (overrides SHARDWAL_DATA_DIR)',
    },
    json: {
      type: 'boolean',
      description: 'print the endpoints as one JSON line (stack.json) instead of the banner',
    },
  },
  async run(input, io) {
    const dataDir = stringOption(input, 'data-dir');
    const settings = localSettingsFromEnv(
      dataDir === undefined ? io.env : { ...io.env, SHARDWAL_DATA_DIR: dataDir },
    );
    // Checked before loading the emulators, so the refusal is quick (`startLocalStack` checks again).
    const layout = dataDirLayout(settings.dataDir);
    const running = await findRunningStack(layout.stackFile);
    if (running) throw new StackRunningError(layout.root, running.pid, running.httpUrl);
    // Loaded here, not at the top: the other commands need none of the emulators.
    const { startLocalStack } = await import('../../infra/local/local-stack.js');
    const { startBanner } = await import('../../infra/local/banner.js');
    const signal = nextSignal(); // a signal during start-up stops the stack as soon as it is up
    let stack: Awaited<ReturnType<typeof startLocalStack>>;
    try {
      stack = await startLocalStack(settings);
    } catch (error) {
      signal.cancel();
      throw error;
    }
    await writeText(
      io.stdout,
      booleanOption(input, 'json')
        ? `${JSON.stringify(stack.info)}\n`
        : startBanner(stack.info, io.cwd),
    );
    const received = await signal.received;
    await writeText(io.stderr, `${received}: stopping (final flush)…\n`);
    const forced = nextSignal();
    void forced.received.then(() => {
      io.stderr.write('stopping interrupted; unflushed rows stay buffered in the data folder\n');
      process.exit(130);
    });
    const report = await stack.stop().finally(forced.cancel);
    const notes = [
      report.pendingShards.length > 0 &&
        `still pending (flushed on the next start): ${report.pendingShards.join(', ')}`,
      report.sqsMessagesLeft > 0 &&
        `${report.sqsMessagesLeft} SQS messages stay on the ingest queue (handled after the next start)`,
    ].filter(Boolean);
    await writeText(
      io.stderr,
      `stopped; data in ${stack.info.dataDir}${notes.map((n) => `\n  ${n}`).join('')}\n`,
    );
    return 0;
  },
};
