/**
 * The input of `shardwal put`: JSON Lines from a file or stdin, read twice.
 * The first pass checks every line with the service's own rules
 * (`put-check.ts`) and plans the batches (`put-plan.ts`), so nothing is
 * sent from an input with a bad line; the second pass sends. Input that
 * cannot be read twice (stdin, a pipe) is first copied to a temporary file,
 * so memory stays bounded whatever the input's size.
 *
 * Lines are split on `\n` (a trailing `\r` is dropped), decoded as strict
 * UTF-8 and sent as written (trimmed); blank lines are skipped.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { InvalidInputError } from '../errors.js';
import { fileSystemReason } from './errors.js';
import { checkLine, type LineRules } from './put-check.js';
import { BatchPlanner, type PlanLimits, type PlannedBatch } from './put-plan.js';

/** What `file` is; `other` for a pipe or device (read once, copied). */
async function fileKind(file: string): Promise<'file' | 'directory' | 'other'> {
  try {
    const info = await stat(file);
    if (info.isFile()) return 'file';
    return info.isDirectory() ? 'directory' : 'other';
  } catch (error) {
    throw fileError(file, error);
  }
}

/** A file system error on `--file` as one line naming what to fix (exit 1). */
function fileError(file: string, error: unknown): unknown {
  const reason = fileSystemReason(error);
  if (reason === undefined) return error;
  const advice = reason === 'is a directory' ? '; name a JSON Lines file' : '';
  return new InvalidInputError('--file', `${file}: ${reason}${advice}`);
}

/** A readable-twice input. */
export interface PutInput {
  /** A regular file holding the input. */
  file: string;
  /** What the user named, for messages. */
  name: string;
  /** Removes the temporary copy, if one was made. */
  cleanup: () => Promise<void>;
}

/** `file` when it is a regular file, else (stdin, a pipe) a temporary copy of it. */
export async function openPutInput(file: string | undefined, stdin: Readable): Promise<PutInput> {
  if (file !== undefined) {
    const kind = await fileKind(file);
    if (kind === 'file') return { file, name: file, cleanup: async () => {} };
    if (kind === 'directory') throw fileError(file, { code: 'EISDIR' });
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), 'shardwal-put-'));
  const copy = path.join(dir, 'input.jsonl');
  try {
    await pipeline(file === undefined ? stdin : createReadStream(file), createWriteStream(copy));
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw file === undefined ? error : fileError(file, error);
  }
  return {
    file: copy,
    name: file ?? 'stdin',
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/** One line of input. */
export interface InputLine {
  /** 1-based line number. */
  line: number;
  /** The line's text, or undefined when its bytes are not UTF-8. */
  text: string | undefined;
  /** The line's bytes, without the `\n` and a trailing `\r`. */
  bytes: Buffer;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function decode(line: number, raw: Buffer): InputLine {
  const end = raw.length > 0 && raw[raw.length - 1] === 0x0d ? raw.length - 1 : raw.length;
  const bytes = raw.subarray(0, end);
  try {
    return { line, text: utf8.decode(bytes), bytes };
  } catch {
    return { line, text: undefined, bytes };
  }
}

/** The lines of `file`, blank ones included. */
export async function* readLines(file: string): AsyncGenerator<InputLine> {
  let carry = Buffer.alloc(0);
  let line = 0;
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    let data = carry.length === 0 ? chunk : Buffer.concat([carry, chunk]);
    let at = data.indexOf(0x0a);
    while (at !== -1) {
      line++;
      yield decode(line, data.subarray(0, at));
      data = data.subarray(at + 1);
      at = data.indexOf(0x0a);
    }
    carry = Buffer.from(data);
  }
  if (carry.length > 0) yield decode(line + 1, carry);
}

/** Whether a line holds no row (empty or whitespace only). */
export function isBlank(line: InputLine): boolean {
  return line.text !== undefined && line.text.trim() === '';
}

/** A line that cannot be sent. */
interface LineProblem {
  line: number;
  column: number;
  problem: string;
}

/** What the first pass found. */
export interface InputScan {
  /** Non-blank lines, each a row. */
  rows: number;
  /** The batches to send, in file order (`put-plan.ts`). */
  batches: PlannedBatch[];
  /** The first `maxProblems` bad lines. */
  problems: LineProblem[];
  /** Bad lines in all. */
  problemCount: number;
}

/** Checks every line of `file` and plans its batches. */
export async function scanInput(
  file: string,
  options: LineRules & PlanLimits & { maxProblems: number },
): Promise<InputScan> {
  const planner = new BatchPlanner(options);
  const scan: InputScan = { rows: 0, batches: [], problems: [], problemCount: 0 };
  for await (const input of readLines(file)) {
    if (isBlank(input)) continue;
    const check = checkLine(input.text, input.bytes, options);
    if (check.ok) {
      scan.rows++;
      planner.addRow(input.line, check.rowBytes);
      continue;
    }
    scan.problemCount++;
    if (scan.problems.length < options.maxProblems) {
      scan.problems.push({ line: input.line, column: check.column, problem: check.problem });
    }
  }
  scan.batches = planner.finish();
  return scan;
}
