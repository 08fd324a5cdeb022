/**
 * `<dataDir>/stack.json`: how other processes (the CLI) find a running local
 * stack. While a stack runs, its dynalite holds the leveldb lock, so readers
 * must go through the stack's endpoints instead of opening the files.
 *
 * Contract:
 * 1. Written once, after every endpoint listens (write temp + rename, so a
 *    reader never sees a partial file), and removed on a clean stop — only
 *    when it still names the stopping process.
 * 2. A file whose `pid` is not alive, or whose DynamoDB endpoint refuses
 *    connections (the pid was reused after a crash), is stale: readers ignore
 *    it and a new stack overwrites it.
 * 3. Fields are only ever added; `version` changes if one changes meaning.
 */
import { readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { InvalidInputError } from '../errors.js';

/** Version of the stack.json layout. */
export const STACK_FILE_VERSION = 1;

/** The contents of stack.json. */
export interface StackInfo {
  version: typeof STACK_FILE_VERSION;
  pid: number;
  /** ISO-8601 start time. */
  startedAt: string;
  /** Absolute data folder. */
  dataDir: string;
  /** Base URL of the HTTP API. */
  httpUrl: string;
  /** dynalite endpoint (the DynamoDB API). */
  dynamodbEndpoint: string;
  tableName: string;
  /** fauxqs endpoint (the SQS API). */
  sqsEndpoint: string;
  queueUrl: string;
  deadLetterQueueUrl: string;
  /** Root of the filesystem object store. */
  objectsDir: string;
  flushIntervalMs: number;
  /** Period of the local export job; null when off. */
  exportEveryMs: number | null;
  /** Period of the local scheduled verify; null when off. */
  verifyEveryMs: number | null;
}

/** Writes `info` atomically (temp file + rename). */
export async function writeStackFile(file: string, info: StackInfo): Promise<void> {
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(info, null, 2)}\n`);
  await rename(temp, file);
}

/** Removes the file if it still names `pid`. */
export async function removeStackFile(file: string, pid: number): Promise<void> {
  const info = await readStackFile(file).catch(() => undefined);
  if (info && info.pid !== pid) return;
  await unlink(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
}

/** Reads the file; undefined when absent. A malformed file is an error naming it. */
async function readStackFile(file: string): Promise<StackInfo | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let info: Partial<StackInfo>;
  try {
    info = JSON.parse(text) as Partial<StackInfo>;
  } catch {
    throw new InvalidInputError(file, 'not JSON; delete it if no stack runs on this data folder');
  }
  if (info.version !== STACK_FILE_VERSION || typeof info.pid !== 'number') {
    throw new InvalidInputError(
      file,
      `expected version ${STACK_FILE_VERSION} with a pid, got version ${JSON.stringify(info.version)}`,
    );
  }
  return info as StackInfo;
}

/** True when a process with `pid` exists (signal 0 probes without signalling). */
function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** True when something accepts TCP connections at `endpoint`'s host and port. */
function acceptsConnections(endpoint: string, timeoutMs = 1_000): Promise<boolean> {
  const url = new URL(endpoint);
  return new Promise((resolve) => {
    const socket = connect({ host: url.hostname, port: Number(url.port) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** The running stack on this data folder, or undefined when none runs (absent or stale file). */
export async function findRunningStack(file: string): Promise<StackInfo | undefined> {
  const info = await readStackFile(file);
  if (!info || !isProcessAlive(info.pid)) return undefined;
  return (await acceptsConnections(info.dynamodbEndpoint)) ? info : undefined;
}
