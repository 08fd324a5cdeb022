/**
 * The CLI entry (`runCli`) on mistakes a user makes: each is one line on
 * stderr naming what to fix, exit 1 or 2, never "a bug" with a stack.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from './cli-io.js';

let dir: string;
let file: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'shardwal-user-errors-'));
  file = path.join(dir, 'rows.jsonl');
  await writeFile(file, '{"a":1}\n');
  for (const shard of ['orders', 'clicks']) {
    await mkdir(path.join(dir, 'objects-only', 'objects', 'shards', shard, 'wal'), {
      recursive: true,
    });
  }
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('runCli', () => {
  describe('user errors', () => {
    const cases: [string, () => string[], RegExp][] = [
      [
        'a missing --file',
        () => ['put', 'orders', '--file', path.join(dir, 'missing.jsonl')],
        /^shardwal put: --file: .*missing\.jsonl: no such file or directory$/,
      ],
      [
        'a directory as --file',
        () => ['put', 'orders', '--file', dir],
        /^shardwal put: --file: .*: is a directory; name a JSON Lines file$/,
      ],
      [
        'a --file under a file',
        () => ['put', 'orders', '--file', path.join(file, 'x')],
        /^shardwal put: --file: .*rows\.jsonl\/x: a part of the path is not a directory$/,
      ],
      [
        'a file as --data-dir (status)',
        () => ['status', 'orders', '--data-dir', file],
        /^shardwal status: .*rows\.jsonl\/stack\.json: a part of the path is not a directory$/,
      ],
      [
        'a file as --data-dir (dump)',
        () => ['dump', 'orders', '--data-dir', file],
        /^shardwal dump: .*: a part of the path is not a directory$/,
      ],
      [
        'a data folder holding only objects/ (status)',
        () => ['status', 'orders', '--data-dir', path.join(dir, 'objects-only')],
        /^shardwal status: no DynamoDB state in .*objects-only, only its object store \(shards clicks, orders\); run `shardwal recover <shard>` for each/,
      ],
      [
        'a data folder holding only objects/ (dump)',
        () => ['dump', 'orders', '--data-dir', path.join(dir, 'objects-only')],
        /^shardwal dump: .*run `shardwal recover <shard>`/,
      ],
      [
        'a file as --data-dir (recover)',
        () => ['recover', 'orders', '--data-dir', file],
        /^shardwal recover: .*: a part of the path is not a directory$/,
      ],
    ];
    it.each(cases)('prints one line naming the fix for %s', async (_name, argv, message) => {
      const run = await cli(argv());
      expect([1, 2]).toContain(run.code);
      expect(run.stdout).toBe('');
      expect(run.stderr).not.toContain('a bug');
      expect(run.stderr).not.toMatch(/\n\s+at /);
      expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(run.stderr.trimEnd()).toMatch(message);
    });
  });
});
