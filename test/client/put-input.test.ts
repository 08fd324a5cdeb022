import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../lib/cli/errors.js';
import { assertKeyField, checkLine, type LineRules } from '../../lib/cli/put-check.js';
import { openPutInput, readLines, scanInput } from '../../lib/cli/put-input.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'shardwal-put-input-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function lines(bytes: Buffer): Promise<Array<string | undefined>> {
  const file = path.join(dir, `lines-${Math.random().toString(36).slice(2)}`);
  await writeFile(file, bytes);
  const out: Array<string | undefined> = [];
  for await (const { text } of readLines(file)) out.push(text);
  return out;
}

const RULES = { keyField: undefined, maxRowBytes: 1_000 };
const LIMITS = { linesPerBlock: 2, maxBytes: 1_100, overheadBytes: 11 };

describe('put input', () => {
  describe('readLines', () => {
    it('splits on \\n, drops a trailing \\r, and keeps a last line without \\n', async () => {
      expect(await lines(Buffer.from('{"a":1}\r\n\n{"b":2}'))).toEqual(['{"a":1}', '', '{"b":2}']);
    });

    it('decodes multi-byte characters split across read chunks', async () => {
      const line = JSON.stringify({ s: 'ü€😀'.repeat(3_000) });
      const text = Array.from({ length: 20 }, () => line).join('\n');
      const got = await lines(Buffer.from(text));
      expect(got).toHaveLength(20);
      expect(got.every((l) => l === line)).toBe(true);
    });

    it('reports a line that is not UTF-8 as undefined, and only that line', async () => {
      const got = await lines(
        Buffer.concat([
          Buffer.from('{"a":1}\n'),
          Buffer.from([0x7b, 0xff, 0x7d, 0x0a]),
          Buffer.from('{"c":3}\n'),
        ]),
      );
      expect(got).toEqual(['{"a":1}', undefined, '{"c":3}']);
    });
  });

  describe('checkLine', () => {
    const check = (
      text: string | undefined,
      rules: LineRules = RULES,
      bytes: Uint8Array = Buffer.alloc(0),
    ) => checkLine(text, text === undefined ? bytes : Buffer.from(text), rules);
    const problem = (text: string | undefined, rules: LineRules = RULES, bytes?: Uint8Array) => {
      const got = check(text, rules, bytes);
      return got.ok ? undefined : `${got.column}: ${got.problem}`;
    };

    it('accepts an object and names what is wrong with anything else, with its column', () => {
      expect(check('  {"a": 1}  ')).toEqual({ ok: true, rowText: '{"a": 1}', rowBytes: 8 });
      expect(problem('{"a": ')).toBe('6: a: the line ends before the JSON does');
      expect(problem('{"a": tru}')).toBe("7: a: expected a JSON value, got 't'");
      expect(problem('"text"')).toBe('1: row: expected a JSON object, got string');
      expect(problem('null')).toBe('1: row: expected a JSON object, got null');
      expect(problem('{"$delete": true}')).toBe('1: a "$delete" row needs --key-field');
      expect(problem(JSON.stringify({ s: 'x'.repeat(2_000) }))).toMatch(/more than a batch/);
      expect(problem('{"a":1},{"b":2}')).toBe('1: expected one JSON object per line, got 2');
    });

    it('refuses what the service refuses and JSON.parse accepts: duplicate members, lone surrogates', () => {
      // The exact scanner's findings, with the column of the offending member or escape.
      expect(problem('{"i":1,"i":1}')).toBe('8: i: duplicate member "i"');
      expect(problem('  {"s":"\\ud800"}')).toBe('9: s: lone surrogate \\ud800');
      expect(JSON.parse('{"i":1,"i":1}')).toEqual({ i: 1 });
    });

    it('names the first bad byte of a line that is not UTF-8', () => {
      expect(problem(undefined, RULES, Buffer.from([0x7b, 0xff, 0x7d]))).toMatch(/^2: not UTF-8: /);
    });

    it('checks the key field of keyed rows as the service does', () => {
      const keyed = { keyField: 'id', maxRowBytes: 1_000 };
      expect(check('{"id": "a"}', keyed).ok).toBe(true);
      expect(check('{"id": 7}', keyed).ok).toBe(true);
      expect(check('{"id": "a", "$delete": true}', keyed).ok).toBe(true);
      expect(problem('{"id": ""}', keyed)).toMatch(/^1: id: expected a non-empty string/);
      expect(problem('{"other": 1}', keyed)).toMatch(/got nothing$/);
    });
  });

  describe('assertKeyField', () => {
    it('refuses a key field the service refuses', () => {
      expect(() => assertKeyField('id')).not.toThrow();
      expect(() => assertKeyField('$delete')).toThrow(UsageError);
      expect(() => assertKeyField('k'.repeat(300))).toThrow(/^--key-field: expected a field name/);
    });
  });

  describe('scanInput', () => {
    it('counts rows, skips blank lines, lists bad lines with their columns and plans batches', async () => {
      const file = path.join(dir, 'scan.jsonl');
      await writeFile(file, '{"a":1}\n\n[1]\n{"b":2}\n');
      const scan = await scanInput(file, { ...RULES, ...LIMITS, maxProblems: 10 });
      expect(scan).toMatchObject({
        rows: 2,
        problemCount: 1,
        problems: [{ line: 3, column: 1 }],
        batches: [
          { firstLine: 1, lastLine: 2, rows: 1 },
          { firstLine: 3, lastLine: 4, rows: 1 },
        ],
      });
    });
  });

  describe('openPutInput', () => {
    it('copies stdin to a temporary file that cleanup removes', async () => {
      const input = await openPutInput(undefined, Readable.from(['{"a":1}\n', '{"b":2}\n']));
      expect(input.name).toBe('stdin');
      expect(await lines(await readFile(input.file))).toEqual(['{"a":1}', '{"b":2}']);
      await input.cleanup();
      await expect(stat(input.file)).rejects.toThrow(/ENOENT/);
    });
  });
});
