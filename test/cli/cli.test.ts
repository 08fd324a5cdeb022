import { cp, mkdtemp, readdir, rm, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalStack } from '../../infra/local/local-stack.js';
import { startDynalite } from '../../lib/memtable/dynalite-server.js';
import { walKey, walPrefix } from '../../lib/paths.js';
import { postJson } from '../local/http-client.js';
import { testStackSettings } from '../support/local-stack.js';
import { cli, jsonLines, useEnv } from './cli-io.js';
import { startS3, uploadObjects } from './s3-emulator.js';

let root: string;
let dataDir: string;
/** What the stack acked for shard "alpha", in put order. */
const alphaAcks: number[] = [];

/** A copy of the stopped data folder that a test may damage. */
async function copyOfData(): Promise<string> {
  const copy = await mkdtemp(path.join(root, 'copy-'));
  await cp(dataDir, copy, { recursive: true });
  return copy;
}

// Long enough for a first flush on a loaded machine: each durable put gets its own WAL object.
const durableWait = useEnv('SHARDWAL_DURABLE_WAIT_MS', '15000');

beforeAll(async () => {
  durableWait.set();
  root = await mkdtemp(path.join(os.tmpdir(), 'shardwal-cli-'));
  dataDir = path.join(root, 'data');
  // A small interval and one WAL object per flush give alpha several objects.
  const stack = await startLocalStack(testStackSettings(dataDir));
  const rows = `${stack.info.httpUrl}/v1/shards/alpha/rows?durability=durable`;
  const bodies = [
    { rows: [{ n: 1 }, { n: 2 }] },
    { key: 'id', rows: [{ id: 'a', v: 1 }] },
    {
      key: 'id',
      rows: [
        { id: 'a', $delete: true },
        { id: 'b', v: 2 },
      ],
    },
  ];
  for (const body of bodies) {
    const ack = await postJson(rows, body);
    alphaAcks.push((ack.body as { seq: number }).seq);
  }
  await stack.stop();
  durableWait.restore();
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const ALPHA_DUMP = [
  { seq: 1, offset: 0, row: { n: 1 } },
  { seq: 1, offset: 1, row: { n: 2 } },
  { seq: 2, offset: 2, key: 'a', row: { id: 'a', v: 1 } },
  { seq: 3, offset: 3, key: 'a', delete: true },
  { seq: 3, offset: 4, key: 'b', row: { id: 'b', v: 2 } },
];

describe('shardwal CLI', () => {
  describe('against a stopped data folder', () => {
    it('status prints the shard status JSON, indented or with --json on one line', async () => {
      const pretty = await cli(['status', 'alpha', '--data-dir', dataDir]);
      expect(pretty.code).toBe(0);
      expect(pretty.stdout.split('\n').length).toBeGreaterThan(5);
      const status = JSON.parse(pretty.stdout);
      expect(status).toMatchObject({ shard: 'alpha', nextSeq: 4, durableSeq: 3, poison: null });
      const compact = await cli(['status', 'alpha', '--json'], { SHARDWAL_DATA_DIR: dataDir });
      expect(compact.stdout).toBe(`${JSON.stringify(status)}\n`);
    });

    it('status <shard> <seq> prints the state of that seq, as the status API answers it', async () => {
      const out = await cli(['status', 'alpha', '2', '--data-dir', dataDir, '--json']);
      expect(out).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(out.stdout)).toEqual({
        shard: 'alpha',
        seq: 2,
        state: 'durable',
        durable: true,
        durableSeq: 3,
        poison: null,
      });
      const unallocated = await cli(['status', 'alpha', '4', '--data-dir', dataDir]);
      expect(unallocated).toMatchObject({
        code: 1,
        stderr: 'shardwal status: seq 4 of shard alpha not found\n',
      });
    });

    it.each([
      [
        'status',
        ['status', 'alpha', '9007199254740993'],
        '<seq>: "9007199254740993" is above the largest seq the service can issue, 9007199254740991',
      ],
      [
        'tail --from',
        ['tail', 'alpha', '--from', '18446744073709551616'],
        '--from: "18446744073709551616" is above the largest seq the service can issue, 9007199254740991',
      ],
      [
        'tail --from',
        ['tail', 'alpha', '--from', '1e3'],
        '--from: expected a seq (digits) or "end", got "1e3"',
      ],
      [
        'tail --poll-ms',
        ['tail', 'alpha', '--poll-ms', '9'.repeat(400)],
        `--poll-ms: "${'9'.repeat(40)}"… (400 characters) is above the longest wait Node.js timers take, 2147483647`,
      ],
      [
        'put --batch-rows',
        ['put', 'alpha', '--batch-rows', '9007199254740992'],
        '--batch-rows: "9007199254740992" is above the largest accepted, 9007199254740991',
      ],
    ])(
      '%s refuses a number past its limit with exit 2 naming the limit, never rounding it',
      async (_, argv, message) => {
        const out = await cli([...argv, '--data-dir', dataDir]);
        expect(out.code).toBe(2);
        expect(out.stdout).toBe('');
        expect(out.stderr.split('\n')[0]).toBe(`shardwal ${argv[0]}: ${message}`);
      },
    );

    it('dump prints the durable rows in WAL order as JSON Lines', async () => {
      expect(alphaAcks).toEqual([1, 2, 3]);
      const dump = await cli(['dump', 'alpha', '--data-dir', dataDir]);
      expect(dump).toMatchObject({ code: 0, stderr: '' });
      expect(jsonLines(dump.stdout)).toEqual(ALPHA_DUMP);
    });

    it('fails with exit 1 and one line for an unknown shard or a folder with no data', async () => {
      const unknown = await cli(['status', 'nope', '--data-dir', dataDir]);
      expect(unknown).toEqual({
        code: 1,
        stdout: '',
        stderr: 'shardwal status: shard nope not found\n',
      });
      expect((await cli(['dump', 'nope', '--data-dir', dataDir])).code).toBe(1);
      const empty = await cli(['dump', 'alpha', '--data-dir', path.join(root, 'empty')]);
      expect(empty.code).toBe(1);
      expect(empty.stderr).toMatch(
        /^shardwal dump: no shardwal data in .*empty; run `shardwal start` first/,
      );
      expect(empty.stderr.trim().split('\n')).toHaveLength(1);
    });

    it('dump stops with exit 1 naming a corrupt WAL object, before printing any of its rows', async () => {
      const copy = await copyOfData();
      const objects = path.join(copy, 'objects');
      const keys = await readdir(path.join(objects, walPrefix('alpha')));
      const last = walKey('alpha', keys.length - 1);
      await writeFile(path.join(objects, last), Buffer.from('not gzip'));
      const dump = await cli(['dump', 'alpha', '--data-dir', copy]);
      expect(dump.code).toBe(1);
      expect(dump.stderr).toMatch(new RegExp(`^shardwal dump: ${last}: `));
      expect(dump.stderr.trim().split('\n')).toHaveLength(1);
      const printed = jsonLines(dump.stdout);
      expect(printed.every((row) => (row.seq as number) < 3)).toBe(true);
    });

    it('ignores a stale stack.json (dead pid, or a live pid with nothing at its endpoint)', async () => {
      const copy = await copyOfData();
      const stale = { version: 1, dynamodbEndpoint: 'http://127.0.0.1:1', httpUrl: 'http://x' };
      for (const pid of [2 ** 22 + 1, process.pid]) {
        await writeFile(path.join(copy, 'stack.json'), JSON.stringify({ ...stale, pid }));
        const out = await cli(['status', 'alpha', '--data-dir', copy, '--json']);
        expect(out.code).toBe(0);
        expect(JSON.parse(out.stdout)).toMatchObject({ durableSeq: 3 });
      }
    });

    it('dump stops with exit 1 naming a missing WAL position', async () => {
      const copy = await copyOfData();
      await unlink(path.join(copy, 'objects', walKey('alpha', 0)));
      const dump = await cli(['dump', 'alpha', '--data-dir', copy]);
      expect(dump.code).toBe(1);
      expect(dump.stdout).toBe('');
      expect(dump.stderr).toContain(`${walKey('alpha', 0)}: missing`);
    });
  });

  describe('against AWS (--table, --bucket) through emulator endpoints', () => {
    it('status --table reads the named table', async () => {
      const copy = await copyOfData();
      const dynamo = await startDynalite({ path: path.join(copy, 'dynamodb') });
      try {
        const out = await cli(['status', 'alpha', '--table', 'shardwal', '--json'], {
          SHARDWAL_DYNAMODB_ENDPOINT: dynamo.endpoint,
        });
        expect(out.code).toBe(0);
        expect(JSON.parse(out.stdout)).toMatchObject({ nextSeq: 4, durableSeq: 3 });
      } finally {
        await dynamo.close();
      }
    });

    it('dump --bucket reads the WAL objects from S3', async () => {
      const s3 = await startS3(await mkdtemp(path.join(root, 's3-')));
      try {
        await uploadObjects(dataDir, await s3.bucket('wal-bucket'), walPrefix('alpha'));
        const env = { SHARDWAL_S3_ENDPOINT: s3.endpoint };
        const dump = await cli(['dump', 'alpha', '--bucket', 'wal-bucket'], env);
        expect(dump.code).toBe(0);
        expect(dump.stderr).toMatch(/no --table/);
        expect(jsonLines(dump.stdout)).toEqual(ALPHA_DUMP);
        const none = await cli(['dump', 'zeta', '--bucket', 'wal-bucket'], env);
        expect(none.code).toBe(1);
      } finally {
        await s3.close();
      }
    });
  });

  describe('usage errors', () => {
    it.each([
      [[]],
      [['frobnicate']],
      [['status']],
      [['dump', 'Not A Shard']],
      [['status', 'alpha', '--bogus']],
      [['status', 'alpha', 'extra']],
      [['dump', 'alpha', '--data-dir', '/tmp', '--bucket', 'b']],
      [['status', 'alpha', '--bucket', 'b']],
      [['dump', 'alpha', '--table', 't']],
      [['help', 'frobnicate']],
    ])('exit 2 for `shardwal %j`', async (argv) => {
      const out = await cli(argv);
      expect(out.code).toBe(2);
      expect(out.stdout).toBe('');
      expect(out.stderr).not.toBe('');
    });

    it('prints help with exit 0', async () => {
      const all = await cli(['help']);
      expect(all.code).toBe(0);
      for (const name of ['start', 'status', 'dump', 'export', 'recover', 'help'])
        expect(all.stdout).toContain(name);
      const one = await cli(['dump', '--help']);
      expect(one.code).toBe(0);
      expect(one.stdout).toMatch(/^usage: shardwal dump <shard> \[--data-dir <dir>\]/);
    });
  });
});
