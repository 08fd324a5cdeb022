/**
 * The input of `shardwal put`: JSON Lines from a file or stdin, read twice.
 * The first pass checks every line and hashes the bytes (the import id), so
 * nothing is sent from an input with a bad line and a re-run of the same
 * input gets the same batch keys; the second pass sends. Input that cannot
 * be read twice (stdin, a pipe) is first copied to a temporary file, so
 * memory stays bounded whatever the input's size.
 *
 * Lines are split on `\n` (a trailing `\r` is dropped), decoded as strict
 * UTF-8 and sent as written (trimmed); blank lines are skipped.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

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
  if (file !== undefined && (await stat(file)).isFile()) {
    return { file, name: file, cleanup: async () => {} };
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), 'shardwal-put-'));
  const copy = path.join(dir, 'input.jsonl');
  try {
    await pipeline(file === undefined ? stdin : createReadStream(file), createWriteStream(copy));
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
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
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function decode(bytes: Buffer): string | undefined {
  const end =
    bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length;
  try {
    return utf8.decode(bytes.subarray(0, end));
  } catch {
    return undefined;
  }
}

/** The lines of `file`, blank ones included; `onBytes` sees every chunk (for hashing). */
export async function* readLines(
  file: string,
  onBytes?: (chunk: Buffer) => void,
): AsyncGenerator<InputLine> {
  let carry = Buffer.alloc(0);
  let line = 0;
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    onBytes?.(chunk);
    let data = carry.length === 0 ? chunk : Buffer.concat([carry, chunk]);
    let at = data.indexOf(0x0a);
    while (at !== -1) {
      line++;
      yield { line, text: decode(data.subarray(0, at)) };
      data = data.subarray(at + 1);
      at = data.indexOf(0x0a);
    }
    carry = Buffer.from(data);
  }
  if (carry.length > 0) yield { line: line + 1, text: decode(carry) };
}

/** What a line must satisfy. */
export interface LineRules {
  keyField: string | undefined;
  /** The most bytes of JSON one row may have (a batch's bytes less its frame). */
  maxRowBytes: number;
}

/** Why a line cannot be sent, or undefined when it can. */
export function lineProblem(text: string | undefined, rules: LineRules): string | undefined {
  if (text === undefined) return 'not UTF-8';
  const bytes = Buffer.byteLength(text.trim());
  if (bytes > rules.maxRowBytes) {
    return `${bytes} bytes of JSON, more than a batch of --batch-bytes holds (${rules.maxRowBytes})`;
  }
  const { keyField } = rules;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `not JSON: ${(error as Error).message}`;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return `expected a JSON object, got ${Array.isArray(value) ? 'an array' : JSON.stringify(value)}`;
  }
  const row = value as Record<string, unknown>;
  if (keyField === undefined) {
    return '$delete' in row ? 'a "$delete" row needs --key-field' : undefined;
  }
  const key = row[keyField];
  const ok =
    (typeof key === 'string' && key.length > 0) ||
    (typeof key === 'number' && Number.isFinite(key));
  return ok
    ? undefined
    : `${keyField}: expected a non-empty string or a finite number, got ${JSON.stringify(key) ?? 'nothing'}`;
}

/** A line that cannot be sent. */
export interface LineProblem {
  line: number;
  problem: string;
}

/** What the first pass found. */
export interface InputScan {
  /** Hex SHA-256 of the input's bytes. */
  sha256: string;
  /** Non-blank lines, each a row. */
  rows: number;
  /** The first `maxProblems` bad lines. */
  problems: LineProblem[];
  /** Bad lines in all. */
  problemCount: number;
}

/** Checks and hashes every line of `file`. */
export async function scanInput(
  file: string,
  options: LineRules & { maxProblems: number },
): Promise<InputScan> {
  const hash = createHash('sha256');
  const scan: InputScan = { sha256: '', rows: 0, problems: [], problemCount: 0 };
  for await (const { line, text } of readLines(file, (chunk) => hash.update(chunk))) {
    if (text !== undefined && text.trim() === '') continue;
    const problem = lineProblem(text, options);
    if (problem === undefined) {
      scan.rows++;
      continue;
    }
    scan.problemCount++;
    if (scan.problems.length < options.maxProblems) scan.problems.push({ line, problem });
  }
  scan.sha256 = hash.digest('hex');
  return scan;
}

/**
 * The import id of an input: its hash and everything that decides how it is
 * cut (rows and bytes per batch, the key field), so the same command on the
 * same input always yields the same batches under the same keys.
 */
export function importIdOf(
  inputSha256: string,
  cut: { batchRows: number; batchBytes: number; keyField: string | undefined },
): string {
  const digest = createHash('sha256')
    .update(`shardwal-put-v1\n${cut.batchRows}\n${cut.batchBytes}\n${cut.keyField ?? ''}\n`)
    .update(inputSha256)
    .digest('hex');
  return `put-${digest.slice(0, 24)}`;
}
