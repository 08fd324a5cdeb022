/** Runs the CLI in process with captured output, for the CLI and local-stack tests. */
import { Writable } from 'node:stream';
import { runCli } from '../../lib/cli/main.js';

/** What one CLI run printed and returned. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

function capture(tty = false): { stream: Writable; text: () => string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(Buffer.from(chunk));
      done();
    },
  });
  // What the CLI looks at to tell a terminal (`lib/cli/progress.ts`).
  if (tty) Object.assign(stream, { isTTY: true, columns: 100 });
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

/** Runs `shardwal <argv>` with `env` (merged over process.env); `ttyStderr` makes stderr a terminal. */
export async function cli(
  argv: string[],
  env: NodeJS.ProcessEnv = {},
  options: { ttyStderr?: boolean } = {},
): Promise<CliRun> {
  const stdout = capture();
  const stderr = capture(options.ttyStderr);
  const code = await runCli(argv, {
    stdout: stdout.stream,
    stderr: stderr.stream,
    env: { ...process.env, ...env },
    cwd: process.cwd(),
  });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

/** The JSON Lines of a dump. */
export function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Sets one environment variable for a while and puts the old value back. */
export function useEnv(name: string, value: string): { set: () => void; restore: () => void } {
  let previous: string | undefined;
  return {
    set: () => {
      previous = process.env[name];
      process.env[name] = value;
    },
    restore: () => {
      if (previous === undefined) delete process.env[name];
      else process.env[name] = previous;
    },
  };
}
