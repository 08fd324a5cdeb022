/** `shardwal start`: what runs (the declaration, with its help, is `start-command.ts`). */
import { dataDirLayout } from '../local/data-dir.js';
import { StackRunningError } from '../local/errors.js';
import { localSettingsFromEnv } from '../local/local-settings.js';
import { findRunningStack } from '../local/stack-file.js';
import { booleanOption, type CliIo, type CommandInput, stringOption } from './command.js';
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

/** Runs `shardwal start` (declared in `start-command.ts`). */
export async function runStart(input: CommandInput, io: CliIo): Promise<number | undefined> {
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
}
