/**
 * The recovery commands (`export`, `recover`) and `dump` from an export,
 * against the local data folder while the stack runs and after it stopped,
 * and against AWS (`--table`, `--bucket`) through emulator endpoints.
 *
 * Data: shard `orders` gets three durable puts, is exported through the
 * running stack, then gets three more (a WAL tail after the export); shard
 * `gamma` gets all six and is never exported while the stack runs. Each
 * durable put is its own WAL object.
 */
import { cp, mkdtemp, readdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  type AttributeValue,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../../infra/local/local-stack.js';
import type { LocalSettings } from '../../lib/local/local-settings.js';
import { manifestKey, manifestPrefix } from '../../lib/manifest/format.js';
import { startDynalite } from '../../lib/memtable/dynalite-server.js';
import { META_SK, shardPk } from '../../lib/memtable/table.js';
import { walKey, walPrefix } from '../../lib/paths.js';
import { eventually, postJson, send } from '../local/http-client.js';
import { testStackSettings } from '../support/local-stack.js';
import { expireBatchItems } from '../support/shard-item.js';
import { cli, jsonLines, useEnv } from './cli-io.js';
import { startS3, uploadObjects } from './s3-emulator.js';

type Body = { key?: string; rows: Array<Record<string, unknown>> };

const FIRST: Body[] = [
  { rows: [{ n: 1 }, { n: 2 }] },
  {
    key: 'id',
    rows: [
      { id: 'a', v: 1 },
      { id: 'b', v: 1 },
    ],
  },
  {
    key: 'id',
    rows: [
      { id: 'a', $delete: true },
      { id: 'c', v: 1 },
    ],
  },
];
const SECOND: Body[] = [
  { key: 'id', rows: [{ id: 'b', v: 2 }] },
  { rows: [{ n: 3 }] },
  { key: 'id', rows: [{ id: 'c', $delete: true }] },
];
/** The state both shards fold to. */
const FOLDED = { keyed: { b: { id: 'b', v: 2 } }, keyless: [{ n: 1 }, { n: 2 }, { n: 3 }] };

/** The state a dump describes: live keyed rows by key, keyless rows in order. */
function fold(rows: Record<string, unknown>[]) {
  const keyed = new Map<string, unknown>();
  const keyless: unknown[] = [];
  for (const line of rows) {
    if (typeof line.key !== 'string') keyless.push(line.row);
    else if (line.delete === true) keyed.delete(line.key);
    else keyed.set(line.key, line.row);
  }
  return { keyed: Object.fromEntries([...keyed].sort(([a], [b]) => a.localeCompare(b))), keyless };
}

let root: string;
let dataDir: string;
let stack: LocalStack;
let settings: LocalSettings;
/** The raw shard record of `orders` after the first puts: a "backup" to roll the table back to. */
let ordersBackup: Record<string, AttributeValue>;

const durableWait = useEnv('SHARDWAL_DURABLE_WAIT_MS', '15000');

async function put(base: string, shard: string, body: Body, durability = 'durable') {
  const res = await postJson(`${base}/v1/shards/${shard}/rows?durability=${durability}`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(durability === 'durable' ? 200 : 202);
  return (res.body as { seq: number }).seq;
}

async function statusOf(shard: string, dir: string): Promise<Record<string, unknown>> {
  const out = await cli(['status', shard, '--json', '--data-dir', dir]);
  expect(out.code, out.stderr).toBe(0);
  return JSON.parse(out.stdout) as Record<string, unknown>;
}

async function copyOfData(): Promise<string> {
  const copy = await mkdtemp(path.join(root, 'copy-'));
  await cp(dataDir, copy, { recursive: true });
  return copy;
}

function startStack(dir: string): Promise<LocalStack> {
  return startLocalStack({ ...settings, dataDir: dir });
}

beforeAll(async () => {
  durableWait.set();
  root = await mkdtemp(path.join(os.tmpdir(), 'shardwal-recovery-cli-'));
  dataDir = path.join(root, 'data');
  settings = testStackSettings(dataDir);
  stack = await startStack(dataDir);
  const base = stack.info.httpUrl;
  for (const body of FIRST) await put(base, 'orders', body);
  for (const body of [...FIRST, ...SECOND]) await put(base, 'gamma', body);
  const client = new DynamoDBClient({
    endpoint: stack.info.dynamodbEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    const out = await client.send(
      new GetItemCommand({
        TableName: stack.info.tableName,
        Key: { pk: { S: shardPk('orders') }, sk: { S: META_SK } },
        ConsistentRead: true,
      }),
    );
    ordersBackup = out.Item!;
  } finally {
    client.destroy();
  }
});

afterAll(async () => {
  await stack?.stop();
  durableWait.restore();
  await rm(root, { recursive: true, force: true });
});

describe('recovery commands', () => {
  describe('against a running local stack', () => {
    it('export, verify and dump go through the running stack while it takes puts', async () => {
      const exported = await cli(['export', 'orders', '--data-dir', dataDir]);
      expect(exported.code, exported.stderr).toBe(0);
      expect(exported.stdout).toMatch(/^export shard orders: EXPORTED in /);
      expect(exported.stdout).toContain(manifestKey('orders', 3));
      for (const body of SECOND) await put(stack.info.httpUrl, 'orders', body);
      expect(await statusOf('orders', dataDir)).toMatchObject({ aofWatermark: 3, walNextPos: 6 });

      const verify = await cli(['recover', 'orders', '--verify', '--data-dir', dataDir]);
      expect(verify.code, verify.stdout).toBe(0);
      expect(verify.stdout).toMatch(/^verify shard orders: OK in /);
      expect(verify.stdout).toContain('positions 3..5 (3 objects, 3 rows)');
      const all = await cli(['recover', '--verify', '--all', '--json', '--data-dir', dataDir]);
      expect(all.code, all.stdout).toBe(0);
      expect(JSON.parse(all.stdout)).toMatchObject({ kind: 'verify-all', shards: 2, findings: 0 });

      const dump = await cli(['dump', 'orders', '--data-dir', dataDir]);
      expect(dump.code, dump.stderr).toBe(0);
      expect(dump.stderr).toContain(`from the export ${manifestKey('orders', 3)}`);
      expect(fold(jsonLines(dump.stdout))).toEqual(FOLDED);
    });
  });

  describe('against the stopped data folder', () => {
    beforeAll(async () => {
      await stack.stop();
    });

    it('export records the watermark that status shows; a second export is up to date', async () => {
      const copy = await copyOfData();
      expect(await statusOf('gamma', copy)).toMatchObject({ aofWatermark: 0, walNextPos: 6 });
      const exported = await cli(['export', 'gamma', '--data-dir', copy]);
      expect(exported.code, exported.stdout).toBe(0);
      expect(exported.stdout).toContain('folded      positions 0..5 (6 objects, 9 rows');
      expect(await statusOf('gamma', copy)).toMatchObject({ aofWatermark: 6, walNextPos: 6 });
      const again = await cli(['export', 'gamma', '--json', '--data-dir', copy]);
      expect(again.code).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ kind: 'export', status: 'up-to-date' });
      const all = await cli(['export', '--all', '--json', '--data-dir', copy]);
      expect(all.code).toBe(0);
      expect(JSON.parse(all.stdout)).toMatchObject({
        kind: 'export-all',
        shards: 2,
        due: 1,
        reports: [{ shard: 'orders', status: 'exported', watermark: { before: 3, after: 6 } }],
      });
    });

    it('dump after an export prints the same logical rows, with their seqs and offsets, even with the WAL below it retired', async () => {
      const copy = await copyOfData();
      const before = await cli(['dump', 'gamma', '--data-dir', copy]);
      expect(before).toMatchObject({ code: 0, stderr: '' });
      expect((await cli(['export', 'gamma', '--data-dir', copy])).code).toBe(0);
      // Retire every WAL object below the watermark, as retention would after its period.
      for (let position = 0; position < 6; position++) {
        await unlink(path.join(copy, 'objects', walKey('gamma', position)));
      }
      const after = await cli(['dump', 'gamma', '--data-dir', copy]);
      expect(after.code, after.stderr).toBe(0);
      expect(after.stderr).toBe(
        `note: rows below WAL position 6 come from the export ${manifestKey('gamma', 6)} (1 live keys, 3 keyless rows); the WAL follows from position 6\n`,
      );
      const rows = jsonLines(after.stdout);
      expect(fold(rows)).toEqual(fold(jsonLines(before.stdout)));
      expect(fold(rows)).toEqual(FOLDED);
      // Each export row is the row the WAL held, at its seq and offset.
      const walLines = new Set(before.stdout.split('\n'));
      for (const line of after.stdout.trim().split('\n')) expect(walLines).toContain(line);

      const walOnly = await cli(['dump', 'gamma', '--wal-only', '--data-dir', copy]);
      expect(walOnly).toMatchObject({ code: 0, stdout: '' });
      expect(walOnly.stderr).toContain('dumping the WAL from position 6');
    });

    it('recover restores shards from the object store alone when the DynamoDB state is gone', async () => {
      const copy = await copyOfData();
      await rm(path.join(copy, 'dynamodb'), { recursive: true, force: true });
      const refused = await cli(['status', 'gamma', '--data-dir', copy]);
      expect(refused.code).not.toBe(0);
      // The step is a rebuild from the objects, not a fresh start.
      expect(refused.stderr).toContain('only its object store (shards gamma, orders)');
      expect(refused.stderr).toContain('run `shardwal recover <shard>`');
      for (const shard of ['gamma', 'orders']) {
        const rebuilt = await cli(['recover', shard, '--data-dir', copy]);
        expect(rebuilt.code, rebuilt.stdout + rebuilt.stderr).toBe(0);
        expect(rebuilt.stdout).toMatch(new RegExp(`^rebuild shard ${shard}: REBUILT`));
        const dump = await cli(['dump', shard, '--data-dir', copy]);
        expect(dump.code, dump.stderr).toBe(0);
        expect(fold(jsonLines(dump.stdout))).toEqual(FOLDED);
      }
      expect(await statusOf('gamma', copy)).toMatchObject({
        walNextPos: 6,
        durableSeq: 6,
        nextSeq: 7,
      });
      const verify = await cli(['recover', '--verify', '--all', '--json', '--data-dir', copy]);
      expect(JSON.parse(verify.stdout)).toMatchObject({ shards: 2, findings: 0 });
    });

    it('recover restores a shard through a stack started on a folder whose DynamoDB state is gone', async () => {
      const copy = await copyOfData();
      await rm(path.join(copy, 'dynamodb'), { recursive: true, force: true });
      const fresh = await startStack(copy);
      try {
        const rebuilt = await cli(['recover', 'orders', '--data-dir', copy]);
        expect(rebuilt.code, rebuilt.stdout + rebuilt.stderr).toBe(0);
        // The shard takes puts again, after the rows it held.
        const seq = await put(fresh.info.httpUrl, 'orders', { rows: [{ n: 4 }] });
        expect(seq).toBe(7);
        const dump = await cli(['dump', 'orders', '--data-dir', copy]);
        expect(fold(jsonLines(dump.stdout)).keyless).toEqual([...FOLDED.keyless, { n: 4 }]);
      } finally {
        await fresh.stop();
      }
    });

    it('dump from an export continues with the WAL tail after it', async () => {
      const dump = await cli(['dump', 'orders', '--data-dir', dataDir]);
      expect(dump.code, dump.stderr).toBe(0);
      const rows = jsonLines(dump.stdout);
      expect(fold(rows)).toEqual(FOLDED);
      // The export's rows (seqs 1-3) come first, then the tail's (seqs 4-6) in WAL order.
      // Export: live keys b (seq 2) and c (seq 3) by key, then keyless offsets 0-1 (seq 1).
      expect(rows.map((row) => row.seq)).toEqual([2, 3, 1, 1, 4, 5, 6]);
      const tail = await cli(['dump', 'orders', '--wal-only', '--data-dir', dataDir]);
      expect(jsonLines(tail.stdout).map((row) => row.seq)).toEqual([4, 5, 6]);
    });

    it('recover --verify exits 0 with the readable report, and --json prints the report as JSON', async () => {
      const text = await cli(['recover', 'orders', '--verify', '--data-dir', dataDir]);
      expect(text).toMatchObject({ code: 0, stderr: '' });
      expect(text.stdout).toMatch(/^verify shard orders: OK in [\d.]+ s\n {2}export {6}/);
      expect(text.stdout).toContain(`${manifestKey('orders', 3)} (verified whole)`);
      const json = await cli(['recover', 'orders', '--verify', '--json'], {
        SHARDWAL_DATA_DIR: dataDir,
      });
      expect(json.code).toBe(0);
      expect(JSON.parse(json.stdout)).toMatchObject({
        kind: 'verify',
        shard: 'orders',
        ok: true,
        findings: [],
        walChecked: { fromPosition: 3, toPosition: 6, objects: 3 },
      });
    });

    it('verify exits 1 naming a corrupt WAL object, and a rebuild stops there, naming it', async () => {
      const copy = await copyOfData();
      const walDir = path.join(copy, 'objects', walPrefix('orders'));
      const newest = (await readdir(walDir)).sort().at(-1)!;
      const key = walKey('orders', Number(newest));
      const bytes = await readFile(path.join(copy, 'objects', key));
      const at = Math.floor(bytes.length / 2); // inside the deflate data
      bytes.writeUInt8(bytes[at]! ^ 0xff, at);
      await writeFile(path.join(copy, 'objects', key), bytes);

      const verify = await cli(['recover', 'orders', '--verify', '--data-dir', copy]);
      expect(verify.code).toBe(1);
      expect(verify.stdout).toMatch(/^verify shard orders: 1 FINDING\(S\)/);
      expect(verify.stdout).toMatch(new RegExp(`FINDING +wal-corrupt @5: .*${key}`));
      const json = await cli(['recover', 'orders', '--verify', '--json', '--data-dir', copy]);
      expect(json.code).toBe(1);
      expect(JSON.parse(json.stdout).findings).toMatchObject([
        { kind: 'wal-corrupt', position: 5 },
      ]);

      const rebuild = await cli(['recover', 'orders', '--data-dir', copy]);
      expect(rebuild.code).toBe(1);
      expect(rebuild.stdout).toMatch(/^rebuild shard orders: STOPPED/);
      expect(rebuild.stdout).toContain(`STOPPED     at position 5 (${key}): corrupt: `);
    });

    it('rebuild restores a shard rolled back behind S3 and poisoned, lists the rejected batch, and the shard takes puts again', async () => {
      const copy = await copyOfData();
      const dynamo = await startDynalite({ path: path.join(copy, 'dynamodb') });
      try {
        await dynamo.client.send(new PutItemCommand({ TableName: 'shardwal', Item: ordersBackup }));
        // A restore older than the batch items' lifetime: they expired meanwhile.
        await expireBatchItems({ client: dynamo.client, tableName: 'shardwal' }, 'orders', 1_000);
      } finally {
        await dynamo.close();
      }
      // The rolled-back record hands out seq 4 again; the next flush finds S3 disagrees and poisons.
      let running = await startStack(copy);
      try {
        await put(
          running.info.httpUrl,
          'orders',
          { key: 'id', rows: [{ id: 'z', v: 9 }] },
          'buffered',
        );
        await eventually(
          async () => {
            const res = await send('GET', `${running.info.httpUrl}/v1/shards/orders`);
            return (res.body as { poison: string | null }).poison ?? undefined;
          },
          10_000,
          'the flush to poison the shard',
        );
      } finally {
        await running.stop();
      }
      const verify = await cli(['recover', 'orders', '--verify', '--data-dir', copy]);
      expect(verify.code).toBe(1);
      expect(verify.stdout).toMatch(/FINDING +poisoned/);

      const rebuild = await cli(['recover', 'orders', '--data-dir', copy]);
      expect(rebuild.code, rebuild.stdout).toBe(0);
      expect(rebuild.stdout).toMatch(/^rebuild shard orders: REBUILT/);
      expect(rebuild.stdout).toContain('REJECTED    seq 4: 1 row(s)');
      expect(rebuild.stdout).toMatch(
        /quarantine of shard orders: 1 rejected batch\(es\), 1 row\(s\)[^\n]*\n {2}QUARANTINED seq 4 .*\n {14}\{"key":"z","row":\{"id":"z","v":9\}\}/,
      );
      expect(await statusOf('orders', copy)).toMatchObject({
        poison: null,
        durableSeq: 6,
        walNextPos: 6,
        aofWatermark: 3,
      });

      running = await startStack(copy);
      try {
        expect(await put(running.info.httpUrl, 'orders', { rows: [{ n: 4 }] })).toBe(7);
      } finally {
        await running.stop();
      }
      expect((await cli(['recover', 'orders', '--verify', '--data-dir', copy])).code).toBe(0);
      const dump = await cli(['dump', 'orders', '--data-dir', copy]);
      expect(fold(jsonLines(dump.stdout)).keyless).toEqual([
        { n: 1 },
        { n: 2 },
        { n: 3 },
        { n: 4 },
      ]);
    });

    it('shows progress on a terminal, erased before the report; elsewhere only with --progress', async () => {
      const tty = await cli(
        ['recover', 'orders', '--verify', '--data-dir', dataDir],
        {},
        {
          ttyStderr: true,
        },
      );
      expect(tty.code).toBe(0);
      const clearLine = '\r\x1b[2K';
      expect(tty.stderr.startsWith(`${clearLine}verify orders: wal 4/6, 1 rows, `)).toBe(true);
      expect(tty.stderr.endsWith(clearLine)).toBe(true);
      const plain = await cli(['recover', 'orders', '--verify', '--data-dir', dataDir]);
      expect(plain.stderr).toBe('');
      const forced = await cli([
        'recover',
        'orders',
        '--verify',
        '--progress',
        '--data-dir',
        dataDir,
      ]);
      expect(forced.stderr).toMatch(/^verify orders: wal 4\/6, 1 rows, [\d.]+ s\n$/);
    });
  });

  describe('against AWS (--table and --bucket) through emulator endpoints', () => {
    it('export, verify and dump read and write the named table and bucket', async () => {
      const copy = await copyOfData();
      const dynamo = await startDynalite({ path: path.join(copy, 'dynamodb') });
      const s3 = await startS3(await mkdtemp(path.join(root, 's3-')));
      try {
        const bucket = await s3.bucket('shardwal-data');
        await uploadObjects(copy, bucket, 'shards/');
        const env = {
          SHARDWAL_DYNAMODB_ENDPOINT: dynamo.endpoint,
          SHARDWAL_S3_ENDPOINT: s3.endpoint,
        };
        const aws = ['--table', 'shardwal', '--bucket', 'shardwal-data'];
        const exported = await cli(['export', 'gamma', ...aws], env);
        expect(exported.code, exported.stdout + exported.stderr).toBe(0);
        expect(exported.stdout).toMatch(/^export shard gamma: EXPORTED/);
        expect(await bucket.get(manifestKey('gamma', 6))).toBeDefined();
        const verify = await cli(['recover', '--verify', '--all', ...aws], env);
        expect(verify.code, verify.stdout).toBe(0);
        expect(verify.stdout).toMatch(/^verify all: 2 shards, 2 OK, 0 finding\(s\)/);
        const dump = await cli(['dump', 'gamma', ...aws], env);
        expect(dump.code, dump.stderr).toBe(0);
        expect(fold(jsonLines(dump.stdout))).toEqual(FOLDED);
        // Without the table, the dump still starts from the newest export.
        const bucketOnly = await cli(['dump', 'gamma', '--bucket', 'shardwal-data'], env);
        expect(bucketOnly.stderr).toContain(`from the export ${manifestKey('gamma', 6)}`);
        expect(fold(jsonLines(bucketOnly.stdout))).toEqual(FOLDED);
        const exports = [];
        for await (const key of bucket.list(manifestPrefix('gamma'))) exports.push(key);
        expect(exports).toEqual([manifestKey('gamma', 6)]);
      } finally {
        await s3.close();
        await dynamo.close();
      }
    });
  });

  describe('usage', () => {
    it.each([
      [['export']],
      [['export', 'orders', '--all']],
      [['recover']],
      [['recover', '--all']],
      [['recover', 'orders', '--heal']],
      [['recover', 'orders', '--verify', '--no-export']],
      [['recover', 'orders', '--verify', '--all']],
      [['export', 'orders', '--table', 't']],
      [['recover', 'orders', '--bucket', 'b']],
    ])('exit 2 for `shardwal %j`', async (argv) => {
      const out = await cli(argv);
      expect(out.code).toBe(2);
      expect(out.stdout).toBe('');
      expect(out.stderr).toMatch(/\nusage: shardwal (export|recover) /);
    });
  });
});
