/**
 * The CLI's command-module interface. A command is a declaration
 * (`<name>-command.ts`, exporting a `CliCommand`, listed once in
 * `commands.ts`) whose `run` imports its code (`<name>-run.ts`) when it runs,
 * so `--help` and every other command load none of it; `main.ts` parses its options
 * and positional arguments from the declaration, prints its help, and maps
 * what it throws to an exit code:
 *
 * - returns (or returns 0): exit 0;
 * - throws `UsageError`: exit 2, the message and the command's usage line;
 * - throws a `ShardwalError` (any kind): exit 1, its message on one line;
 * - throws a file system error (ENOENT, EACCES, ...): exit 1, its path and reason on one line;
 * - throws anything else: exit 1, the message and the stack (a bug).
 *
 * A command writes its results to `io.stdout` (through `writeText`, which
 * respects backpressure) and notes meant for people to `io.stderr`.
 */
import type { Readable, Writable } from 'node:stream';

/** Exit codes. */
export const ExitCode = { ok: 0, failure: 1, usage: 2 } as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** A `--flag` a command accepts. */
export interface CliOption {
  type: 'string' | 'boolean';
  short?: string;
  /** Placeholder of a string option's value in usage lines, e.g. `<name>`. */
  value?: string;
  description: string;
}

/** The process's streams and environment, injectable for tests. */
export interface CliIo {
  /** Input for commands that read it (`put`); default `process.stdin`. */
  stdin?: Readable;
  stdout: Writable;
  stderr: Writable;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** A command's parsed invocation. */
export interface CommandInput {
  /** Positional arguments, already checked against the command's `args`. */
  args: string[];
  /** Option values by name (without dashes); undefined when not given. */
  options: Record<string, string | boolean | undefined>;
}

/** One command. */
export interface CliCommand {
  /** The word after `shardwal`. */
  name: string;
  /** Positional arguments in order: `<name>` required, `[name]` optional. */
  args: readonly string[];
  /** One line for the command list. */
  summary: string;
  /** More help, printed by `shardwal help <name>` (optional). */
  description?: string;
  options: Readonly<Record<string, CliOption>>;
  /** Runs the command; resolves with the exit code (0 when nothing is returned). */
  run(input: CommandInput, io: CliIo): Promise<number | undefined>;
}

/** The value of string option `name`, if given. */
export function stringOption(input: CommandInput, name: string): string | undefined {
  const value = input.options[name];
  return typeof value === 'string' ? value : undefined;
}

/** Whether boolean option `name` was given. */
export function booleanOption(input: CommandInput, name: string): boolean {
  return input.options[name] === true;
}
