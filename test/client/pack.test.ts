/**
 * The packaged client: `npm pack` (its `prepack` runs the build, `npm run
 * build`) on a copy of the package's sources, the tarball installed offline
 * in a fresh project (dependencies pinned to this repo's lockfile, from the
 * npm cache), then `shardwal/client` imported from ESM and CommonJS,
 * type-checked from TypeScript (the example Lambda producer included), and
 * its compiled code putting rows to a server; the installed `shardwal` bin
 * runs the compiled CLI.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installConsumer, packedPackage, ROOT } from '../support/packed-package.js';

const run = promisify(execFile);

let work: string;
let consumer: string;
let tarballFiles: string[];

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'shardwal-pack-client-'));
  consumer = path.join(work, 'consumer');
  await mkdir(consumer);
  const packed = await packedPackage();
  tarballFiles = packed.files;
  await installConsumer(consumer, packed);
}, 300_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

/** A consumer script that puts two rows to a throwaway server through the compiled client. */
const PUT_SCRIPT = (importLine: string) => `
${importLine}
const http = require('node:http');
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const rows = JSON.parse(body).rows.length;
    res.writeHead(202, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ shard: 'orders', seq: 1, rows, durable: false, key: req.headers['idempotency-key'] }));
  });
});
server.listen(0, '127.0.0.1', async () => {
  const client = new client_.ShardwalHttpClient({ endpoint: 'http://127.0.0.1:' + server.address().port });
  const ack = await client.put('orders', [{ a: 1 }, { a: 2 }], { key: 'k-1' });
  console.log(JSON.stringify({ ack, errors: typeof client_.BackpressureApiError, kinds: Object.keys(client_.STATUS_OF_KIND).length }));
  server.close();
});
`;

describe('npm pack', () => {
  it('packs the compiled client, the construct, the CLI and the function bundles, with types, and no sources or tests', () => {
    expect(tarballFiles).toEqual(
      expect.arrayContaining([
        'dist/lib/client/index.js',
        'dist/lib/client/index.d.ts',
        'dist/lib/errors.js',
        'dist/infra/index.js',
        'dist/infra/index.d.ts',
        'dist/cli/main.mjs',
        'dist/bundles/put-http/index.mjs',
        'bin/shardwal.mjs',
        'docs/client.md',
        'package.json',
      ]),
    );
    // No TypeScript sources (the bin would run them through tsx), no tests, benches or local data.
    expect(tarballFiles.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
    expect(tarballFiles.filter((f) => /^(test|bench|lib|functions|infra)\//.test(f))).toEqual([]);
  });

  describe('shardwal/client, installed from the tarball', () => {
    it('imports from ESM and puts rows', async () => {
      const script = PUT_SCRIPT(
        "import * as client_ from 'shardwal/client'; import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
      );
      const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
        cwd: consumer,
      });
      expect(JSON.parse(stdout)).toEqual({
        ack: { shard: 'orders', seq: 1, rows: 2, durable: false, key: 'k-1' },
        errors: 'function',
        kinds: 13,
      });
    });

    it('requires from CommonJS (Node’s require of ESM) and puts rows', async () => {
      const script = PUT_SCRIPT("const client_ = require('shardwal/client');");
      const { stdout } = await run(process.execPath, ['--input-type=commonjs', '-e', script], {
        cwd: consumer,
      });
      expect(JSON.parse(stdout).ack).toMatchObject({ rows: 2 });
    });

    it('type-checks a TypeScript consumer and the example Lambda producer against the shipped .d.ts', async () => {
      await mkdir(path.join(consumer, 'node_modules', '@types'), { recursive: true });
      await symlink(
        path.join(ROOT, 'node_modules', '@types', 'node'),
        path.join(consumer, 'node_modules', '@types', 'node'),
      );
      const source = [
        "import { type PutAck, ShardwalHttpClient, createHttpProducer, ApiError } from 'shardwal/client';",
        "const client = new ShardwalHttpClient({ endpoint: 'http://localhost:3000', auth: { region: 'eu-west-1' } });",
        "const producer = createHttpProducer(client, 'orders', { keyField: 'id' });",
        'export async function send(): Promise<number> {',
        "  await producer.append({ id: 'a' });",
        "  const ack: PutAck = await client.put('orders', [{ id: 1 }], { durable: true });",
        '  try { await producer.close(); } catch (e) { if (e instanceof ApiError) return e.status ?? 0; }',
        '  return ack.seq;',
        '}',
        '// @ts-expect-error seq is a number',
        'export const wrong: string = ({} as PutAck).seq;',
      ].join('\n');
      await writeFile(path.join(consumer, 'consumer.ts'), source);
      await cp(
        path.join(ROOT, 'examples', 'lambda-producer', 'handler.ts'),
        path.join(consumer, 'handler.ts'),
      );
      const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
      // skipLibCheck as most projects (and this one) set it: the build already checked the
      // declarations, and the @ts-expect-error above fails if a type resolved to any.
      const args = [
        '--noEmit',
        '--strict',
        '--skipLibCheck',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
      ];
      await expect(
        run(process.execPath, [tsc, ...args, '--types', 'node', 'consumer.ts', 'handler.ts'], {
          cwd: consumer,
        }),
      ).resolves.toBeDefined();
    });

    it('reads a shard with tailShard from a local data folder', async () => {
      const { encodeWal } = await import('../../lib/wal/encode.js');
      const { FsObjectStore } = await import('../../lib/store/fs-store.js');
      const dataDir = path.join(work, 'tail-data');
      const row = { seq: 1, offset: 0, text: '{"n":12345678901234567890}' };
      const header = { shard: 'orders', position: 0, epoch: 1, firstSeq: 1, lastSeq: 1 };
      await new FsObjectStore(path.join(dataDir, 'objects')).putIfAbsent(
        'shards/orders/wal/00000000000000000000',
        encodeWal({
          header: { ...header, firstRowOffset: 0, rowCount: 1, voidSeqs: [], createdAtMs: 1 },
          rows: [row],
        }),
      );
      const script = `
        import { openLocalStore, tailShard } from 'shardwal/client';
        const rows = [];
        for await (const r of tailShard(openLocalStore(${JSON.stringify(dataDir)}), 'orders')) rows.push(r);
        console.log(JSON.stringify(rows));`;
      const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
        cwd: consumer,
      });
      expect(JSON.parse(stdout)).toEqual([row]);
    });

    it('installs a working shardwal bin with the put command', async () => {
      const { stdout } = await run(
        path.join(consumer, 'node_modules', '.bin', 'shardwal'),
        ['help'],
        {
          cwd: consumer,
        },
      );
      expect(stdout).toMatch(/\n {2}put +put JSON Lines rows/);
    });
  });
});
