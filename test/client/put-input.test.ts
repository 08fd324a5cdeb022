import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  importIdOf,
  lineProblem,
  openPutInput,
  readLines,
  scanInput,
} from '../../lib/cli/put-input.js';

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

  describe('lineProblem', () => {
    it('accepts an object and names what is wrong with anything else', () => {
      expect(lineProblem('{"a": 1}', RULES)).toBeUndefined();
      expect(lineProblem('{"a": ', RULES)).toMatch(/^not JSON/);
      expect(lineProblem('"text"', RULES)).toBe('expected a JSON object, got "text"');
      expect(lineProblem('null', RULES)).toBe('expected a JSON object, got null');
      expect(lineProblem(undefined, RULES)).toBe('not UTF-8');
      expect(lineProblem('{"$delete": true}', RULES)).toBe('a "$delete" row needs --key-field');
      expect(lineProblem(JSON.stringify({ s: 'x'.repeat(2_000) }), RULES)).toMatch(
        /more than a batch/,
      );
    });

    it('checks the key field of keyed rows', () => {
      const keyed = { keyField: 'id', maxRowBytes: 1_000 };
      expect(lineProblem('{"id": "a"}', keyed)).toBeUndefined();
      expect(lineProblem('{"id": 7}', keyed)).toBeUndefined();
      expect(lineProblem('{"id": "a", "$delete": true}', keyed)).toBeUndefined();
      expect(lineProblem('{"id": ""}', keyed)).toMatch(/^id: expected a non-empty string/);
      expect(lineProblem('{"other": 1}', keyed)).toMatch(/got nothing$/);
    });
  });

  describe('scanInput', () => {
    it('counts rows, skips blank lines, lists bad lines and hashes the bytes', async () => {
      const file = path.join(dir, 'scan.jsonl');
      await writeFile(file, '{"a":1}\n\n[1]\n{"b":2}\n');
      const scan = await scanInput(file, { ...RULES, maxProblems: 10 });
      expect(scan).toMatchObject({ rows: 2, problemCount: 1, problems: [{ line: 3 }] });
      expect(scan.sha256).toBe(
        createHash('sha256').update('{"a":1}\n\n[1]\n{"b":2}\n').digest('hex'),
      );
    });
  });

  describe('importIdOf', () => {
    it('depends on the input and on every cut setting', () => {
      const cut = { batchRows: 1000, batchBytes: 524288, keyField: undefined };
      const id = importIdOf('ab', cut);
      expect(id).toMatch(/^put-[0-9a-f]{24}$/);
      expect(importIdOf('ab', cut)).toBe(id);
      expect(importIdOf('ac', cut)).not.toBe(id);
      expect(importIdOf('ab', { ...cut, batchRows: 999 })).not.toBe(id);
      expect(importIdOf('ab', { ...cut, batchBytes: 1 })).not.toBe(id);
      expect(importIdOf('ab', { ...cut, keyField: 'id' })).not.toBe(id);
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
