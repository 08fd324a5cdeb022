/** A local stack as a child process (`bin/shardwal.mjs start`), for tests that stop or kill it. */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { StackInfo } from '../../lib/local/stack-file.js';

/** The CLI entry point. */
export const BIN = path.resolve('bin/shardwal.mjs');
const run = promisify(execFile);

/** Runs the bin to completion; resolves with its exit code and output. */
export async function shardwal(args: string[], env: NodeJS.ProcessEnv) {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], {
      env,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** Resolves with the first match of `pattern` in the child's stdout. */
export function waitForOutput(
  child: ChildProcess,
  pattern: RegExp,
  timeoutMs = 20_000,
): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(
      () => reject(new Error(`no ${pattern} in output after ${timeoutMs} ms:\n${seen}`)),
      timeoutMs,
    );
    child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      const match = pattern.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) =>
      reject(new Error(`exited with ${code} before ${pattern}:\n${seen}`)),
    );
  });
}

/** A started child stack: the process, and its stack.json once it is up. */
export interface ChildStack {
  child: ChildProcess;
  info: StackInfo;
  exited: Promise<{ code: number | null; signal: string | null }>;
}

/** Starts `shardwal start` with `env` and waits until it is up. */
export async function startChildStack(
  env: NodeJS.ProcessEnv,
  dataDir: string,
): Promise<ChildStack> {
  const child = spawn(process.execPath, [BIN, 'start'], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  await waitForOutput(child, /HTTP API\s+(http:\/\/\S+)/);
  const info = JSON.parse(await readFile(path.join(dataDir, 'stack.json'), 'utf8')) as StackInfo;
  return { child, info, exited };
}
