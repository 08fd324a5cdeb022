/** `shardwal tail`: what runs (the declaration, with its help, is `tail-command.ts`). */
import type { TailFrom, TailOptions, TailRow } from '../client/reader/tail-options.js';
import { tailShardBatches } from '../client/reader/tail-shard.js';
import { NotFoundError } from '../errors.js';
import { quoteParameter } from '../exact-integer.js';
import { shardPrefix } from '../paths.js';
import type { ObjectStore } from '../store/object-store.js';
import { booleanOption, type CliIo, type CommandInput, stringOption } from './command.js';
import { dumpLine } from './dump-line.js';
import { UsageError } from './errors.js';
import { integerArgument, seqArgument } from './integer-argument.js';
import { writeText } from './output.js';
import { shardArgument } from './shard-argument.js';
import { openTailTarget } from './tail-target.js';

/** What tests inject in place of the process's signals and clock. */
export type TailHooks = Pick<TailOptions, 'signal' | 'sleep' | 'now'>;

function fromOption(input: CommandInput): TailFrom | undefined {
  const text = stringOption(input, 'from');
  if (text === undefined || text === 'end') return text;
  if (!/^[0-9]+$/.test(text)) {
    throw new UsageError(`--from: expected a seq (digits) or "end", got ${quoteParameter(text)}`);
  }
  return seqArgument('--from', text);
}

/** setTimeout's largest delay (2^31 − 1 ms); a longer one fires at once. */
const MAX_TIMER_MS = 2_147_483_647;

function pollOption(input: CommandInput): number | undefined {
  const text = stringOption(input, 'poll-ms');
  if (text === undefined) return undefined;
  return integerArgument('--poll-ms', text, {
    min: 1,
    max: MAX_TIMER_MS,
    maxName: 'the longest wait Node.js timers take',
  });
}

async function hasObjects(store: ObjectStore, shard: string): Promise<boolean> {
  for await (const _ of store.list(shardPrefix(shard))) return true;
  return false;
}

/** Writes each batch of rows as dump lines, in one write. */
async function writeRows(io: CliIo, batches: AsyncGenerator<TailRow[], void, undefined>) {
  try {
    for await (const batch of batches) {
      let text = '';
      for (const row of batch) text += `${dumpLine(row)}\n`;
      await writeText(io.stdout, text);
    }
  } finally {
    await batches.return();
  }
}

/** Runs `shardwal tail` with `hooks` (the command itself wires Ctrl-C to `signal`). */
export async function runTail(
  input: CommandInput,
  io: CliIo,
  hooks: TailHooks = {},
): Promise<number> {
  const shard = shardArgument(input);
  const fromSeq = fromOption(input);
  const pollMs = pollOption(input);
  const follow = booleanOption(input, 'follow');
  const target = await openTailTarget(input, io);
  try {
    const exists = (await target.shardExists(shard)) ?? (await hasObjects(target.store, shard));
    if (!exists) {
      if (!follow) throw new NotFoundError(`shard ${shard} in ${target.description}`);
      await writeText(
        io.stderr,
        `note: shard ${shard} has nothing in ${target.description} yet; waiting for its first rows\n`,
      );
    }
    const batches = tailShardBatches(target.store, shard, {
      ...hooks,
      fromSeq,
      follow,
      pollMs,
      // Notes are a line each, rare: a plain write keeps the reader's callback synchronous.
      onNotice: (notice) => void io.stderr.write(`note: ${notice.message}\n`),
    });
    await writeRows(io, batches);
  } finally {
    await target.close();
  }
  return 0;
}

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/** Runs `work` with an abort signal the first SIGINT/SIGTERM fires; a second one exits at once (130). */
async function untilInterrupted<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const onSignal = () => {
    if (controller.signal.aborted) process.exit(130);
    controller.abort();
  };
  for (const signal of SIGNALS) process.on(signal, onSignal);
  try {
    return await work(controller.signal);
  } finally {
    for (const signal of SIGNALS) process.off(signal, onSignal);
  }
}

/** Runs `shardwal tail` (declared in `tail-command.ts`) until done or interrupted. */
export function runTailUntilInterrupted(
  input: CommandInput,
  io: CliIo,
): Promise<number | undefined> {
  return untilInterrupted((signal) => runTail(input, io, { signal }));
}
