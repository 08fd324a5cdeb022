/**
 * The `shardwal` CLI: finds the command in the table (`commands.ts`), parses
 * its arguments from its declaration, runs it, and turns the outcome into an
 * exit code (see `command.ts`). `bin/shardwal.mjs` calls `main()`.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { ShardwalError } from '../errors.js';
import type { CliCommand, CliIo, CommandInput } from './command.js';
import { ExitCode } from './command.js';
import { COMMANDS } from './commands.js';
import { fileSystemProblem, UsageError } from './errors.js';
import { isBrokenPipe, writeText } from './output.js';
import { commandHelp, overallHelp, usageLine } from './usage.js';

/** Parses `argv` (after the command name) against the declaration; undefined means `--help`. */
export function parseCommandArgs(command: CliCommand, argv: string[]): CommandInput | undefined {
  const options: NonNullable<ParseArgsConfig['options']> = {
    help: { type: 'boolean', short: 'h' },
  };
  for (const [name, option] of Object.entries(command.options)) {
    options[name] = option.short
      ? { type: option.type, short: option.short }
      : { type: option.type };
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    // node:util's messages run on with advice about `--`; the first sentence is the point.
    const message = (error as Error).message.split(/\.\s/)[0]!.replace(/\.$/, '');
    throw new UsageError(message);
  }
  if (parsed.values.help === true) return undefined;
  const required = command.args.filter((arg) => arg.startsWith('<'));
  if (parsed.positionals.length < required.length) {
    throw new UsageError(`missing ${required.slice(parsed.positionals.length).join(' ')}`);
  }
  if (parsed.positionals.length > command.args.length) {
    const extra = parsed.positionals[command.args.length]!;
    throw new UsageError(`unexpected argument ${JSON.stringify(extra)}`);
  }
  const { help: _help, ...values } = parsed.values;
  return {
    args: parsed.positionals,
    options: values as CommandInput['options'],
  };
}

/** Prints `error` the way its kind deserves; returns the exit code. */
async function report(error: unknown, command: CliCommand, io: CliIo): Promise<number> {
  if (isBrokenPipe(error)) return ExitCode.ok; // the reader went away (`| head`): not a failure
  const prefix = `shardwal ${command.name}`;
  if (error instanceof UsageError) {
    await writeText(io.stderr, `${prefix}: ${error.message}\nusage: ${usageLine(command)}\n`);
    return ExitCode.usage;
  }
  if (error instanceof ShardwalError) {
    await writeText(io.stderr, `${prefix}: ${error.message}\n`);
    return ExitCode.failure;
  }
  const fileProblem = fileSystemProblem(error);
  if (fileProblem !== undefined) {
    await writeText(io.stderr, `${prefix}: ${fileProblem}\n`);
    return ExitCode.failure;
  }
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  await writeText(io.stderr, `${prefix}: unexpected error (a bug): ${detail}\n`);
  return ExitCode.failure;
}

/** Runs one command line; resolves with the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h') {
    await writeText(name === undefined ? io.stderr : io.stdout, overallHelp(COMMANDS));
    return name === undefined ? ExitCode.usage : ExitCode.ok;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    await writeText(
      io.stderr,
      `shardwal: unknown command ${JSON.stringify(name)}; run \`shardwal help\` for the list\n`,
    );
    return ExitCode.usage;
  }
  try {
    const input = parseCommandArgs(command, rest);
    if (input === undefined) {
      await writeText(io.stdout, commandHelp(command));
      return ExitCode.ok;
    }
    return (await command.run(input, io)) ?? ExitCode.ok;
  } catch (error) {
    return report(error, command, io);
  }
}

/** The process's own streams and environment. */
export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() };
}

/** Entry point of `bin/shardwal.mjs`. */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  // A closed pipe on stdout is the reader's choice, not a crash.
  process.stdout.on('error', (error) => {
    if (isBrokenPipe(error)) process.exit(ExitCode.ok);
    throw error;
  });
  process.exitCode = await runCli(argv, processIo());
}
