/**
 * `shardwal tail` and where it reads: a data folder's objects directly (no
 * stack, no table), a bucket through the S3 emulator (with `--table` to
 * check the shard), usage errors, and a corrupt object stopping the tail
 * with exit 1 after the rows before it.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTable } from '../../lib/memtable/create-table.js';
import { startDynalite } from '../../lib/memtable/dynalite-server.js';
import { walKey } from '../../lib/paths.js';
import { FsObjectStore } from '../../lib/store/fs-store.js';
import { encodeWal } from '../../lib/wal/encode.js';
import { editText, walObject } from '../wal/helpers.js';
import { cli, jsonLines } from './cli-io.js';
import { startS3, uploadObjects } from './s3-emulator.js';

let root: string;
let dataDir: string;

/** Three WAL objects of shard `s1` (rows 0-4), written straight into a data folder's objects. */
beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'shardwal-tail-target-'));
  dataDir = path.join(root, 'data');
  await mkdir(path.join(dataDir, 'objects'), { recursive: true });
  const store = new FsObjectStore(path.join(dataDir, 'objects'));
  const objects = [
    walObject([[{ row: { n: 0 } }, { key: 'a', row: { n: 1 } }]], {
      position: 0,
      firstSeq: 1,
      firstRowOffset: 0,
    }),
    walObject(['void', [{ key: 'a', delete: true }]], {
      position: 1,
      firstSeq: 2,
      firstRowOffset: 2,
    }),
    walObject([[{ row: { n: 3 } }, { row: { n: 4 } }]], {
      position: 2,
      firstSeq: 4,
      firstRowOffset: 3,
    }),
  ];
  for (const object of objects) {
    await store.putIfAbsent(walKey('s1', object.header.position), encodeWal(object));
  }
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const EXPECTED = [
  '{"seq":1,"offset":0,"row":{"n":0}}',
  '{"seq":1,"offset":1,"key":"a","row":{"n":1}}',
  '{"seq":3,"offset":2,"key":"a","delete":true}',
  '{"seq":4,"offset":3,"row":{"n":3}}',
  '{"seq":4,"offset":4,"row":{"n":4}}',
];

describe('shardwal tail', () => {
  describe('targets', () => {
    it('reads a data folder with no stack and no table, from its objects alone', async () => {
      const tail = await cli(['tail', 's1', '--data-dir', dataDir]);
      expect(tail.code).toBe(0);
      expect(tail.stdout).toBe(`${EXPECTED.join('\n')}\n`);
      expect(tail.stderr).toBe('note: reading shard s1 from seq 1, WAL position 0\n');
    });

    it('reads a bucket with --bucket, and checks the shard in --table', async () => {
      const s3 = await startS3(path.join(root, 's3'));
      const dynamo = await startDynalite();
      try {
        await uploadObjects(dataDir, await s3.bucket('tail-bucket'), 'shards/');
        await ensureTable({ client: dynamo.client, tableName: 'shardwal' });
        const env = {
          SHARDWAL_S3_ENDPOINT: s3.endpoint,
          SHARDWAL_DYNAMODB_ENDPOINT: dynamo.endpoint,
        };
        const tail = await cli(['tail', 's1', '--bucket', 'tail-bucket', '--from', '3'], env);
        expect(tail.code).toBe(0);
        expect(tail.stdout).toBe(`${EXPECTED.slice(2).join('\n')}\n`);
        const none = await cli(['tail', 's9', '--bucket', 'tail-bucket'], env);
        expect(none.code).toBe(1);
        expect(none.stderr).toBe('shardwal tail: shard s9 in bucket tail-bucket not found\n');
        // The table has no record of s1: with --table, that is what decides.
        const noRecord = await cli(
          ['tail', 's1', '--bucket', 'tail-bucket', '--table', 'shardwal'],
          env,
        );
        expect(noRecord.code).toBe(1);
        expect(noRecord.stderr).toBe(
          'shardwal tail: shard s1 in bucket tail-bucket, table shardwal not found\n',
        );
      } finally {
        await dynamo.close();
        await s3.close();
      }
    });
  });

  describe('errors', () => {
    it.each([
      [['tail', 's1', '--from', '0']],
      [['tail', 's1', '--from', 'start']],
      [['tail', 's1', '--poll-ms', '-5']],
      [['tail', 's1', '--table', 'shardwal']],
      [['tail', 's1', '--region', 'eu-west-1']],
      [['tail', 's1', '--data-dir', '/tmp', '--bucket', 'b']],
    ])('exits 2 for `shardwal %j`', async (argv) => {
      const out = await cli(argv);
      expect(out.code).toBe(2);
      expect(out.stdout).toBe('');
      expect(out.stderr).toMatch(/^shardwal tail: .*\nusage: shardwal tail <shard>/);
    });

    it('stops with exit 1 at a corrupt object, naming it, after the rows before it', async () => {
      const copy = path.join(root, 'corrupt');
      await mkdir(path.join(copy, 'objects'), { recursive: true });
      const source = new FsObjectStore(path.join(dataDir, 'objects'));
      const target = new FsObjectStore(path.join(copy, 'objects'));
      for (const position of [0, 1, 2]) {
        const bytes = (await source.get(walKey('s1', position)))!;
        const stored =
          position === 2 ? editText(bytes, (t) => t.replace('{"n":4}', '{"n":5}')) : bytes;
        await target.putIfAbsent(walKey('s1', position), stored);
      }
      const tail = await cli(['tail', 's1', '--data-dir', copy]);
      expect(tail.code).toBe(1);
      expect(jsonLines(tail.stdout)).toHaveLength(3);
      expect(tail.stderr).toMatch(
        new RegExp(`\\nshardwal tail: ${walKey('s1', 2)}: .*checksum mismatch`),
      );
    });
  });
});
