/**
 * The packaged client: `npm pack` (its `prepack` builds `dist/` with
 * `tsconfig.client.json`) on a copy of the package's files, the tarball
 * installed offline in a fresh project (dependencies pinned to this repo's
 * lockfile, from the npm cache), then `shardwal/client` imported from ESM
 * and CommonJS, type-checked from TypeScript (the example Lambda producer
 * included), and its compiled code putting rows to a server; the installed
 * `shardwal` bin runs too.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;
const NPM_ENV = { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false' };

interface PackageJson {
  name: string;
  version: string;
  license: string;
  files: string[];
  bin: Record<string, string>;
  engines: Record<string, string>;
  dependencies: Record<string, string>;
  overrides?: Record<string, unknown>;
}

let work: string;
let consumer: string;
let tarballFiles: string[];

/** Copies what `npm pack` needs from the repo: the `files` entries, the build's config, package.json. */
async function stage(dir: string, pkg: PackageJson): Promise<void> {
  const sources = pkg.files.filter((entry) => entry !== 'dist/');
  for (const entry of [
    ...sources,
    'package.json',
    'README.md',
    'tsconfig.json',
    'tsconfig.client.json',
  ]) {
    await mkdir(path.dirname(path.join(dir, entry)), { recursive: true });
    await cp(path.join(ROOT, entry), path.join(dir, entry), { recursive: true });
  }
  // The build (prepack) runs this repo's TypeScript.
  await symlink(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
}

/**
 * A project that depends on the tarball, with a lockfile naming exactly the
 * versions of this repo's lockfile, so `npm ci --offline` installs from the
 * npm cache without asking the registry.
 */
async function consumerProject(dir: string, tarball: string, pkg: PackageJson): Promise<void> {
  const lock = JSON.parse(await readFile(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean; link?: boolean }>;
  };
  const tgz = await readFile(tarball);
  const spec = `file:${path.basename(tarball)}`;
  await cp(tarball, path.join(dir, path.basename(tarball)));
  const packages: Record<string, unknown> = {
    '': { name: 'consumer', version: '1.0.0', dependencies: { shardwal: spec } },
    'node_modules/shardwal': {
      version: pkg.version,
      resolved: spec,
      integrity: `sha512-${createHash('sha512').update(tgz).digest('base64')}`,
      license: pkg.license,
      dependencies: pkg.dependencies,
      bin: pkg.bin,
      engines: pkg.engines,
    },
  };
  for (const [key, entry] of Object.entries(lock.packages)) {
    if (key !== '' && !entry.dev && !entry.link) packages[key] = entry;
  }
  const manifest = { name: 'consumer', version: '1.0.0', private: true, type: 'module' };
  await writeFile(
    path.join(dir, 'package.json'),
    // The repo's overrides too: its lockfile's versions are the overridden ones (cookie under light-my-request).
    JSON.stringify(
      { ...manifest, dependencies: { shardwal: spec }, overrides: pkg.overrides },
      null,
      2,
    ),
  );
  await writeFile(
    path.join(dir, 'package-lock.json'),
    JSON.stringify({ ...manifest, lockfileVersion: 3, requires: true, packages }, null, 2),
  );
}

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'shardwal-pack-'));
  const pkg = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as PackageJson;
  const staging = path.join(work, 'staging');
  consumer = path.join(work, 'consumer');
  await mkdir(staging);
  await mkdir(consumer);
  await stage(staging, pkg);
  const packed = await run('npm', ['pack', '--json', '--pack-destination', work], {
    cwd: staging,
    env: NPM_ENV,
  });
  const [report] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as Array<{
    filename: string;
    files: Array<{ path: string }>;
  }>;
  tarballFiles = report!.files.map((file) => file.path);
  await consumerProject(consumer, path.join(work, report!.filename), pkg);
  await run('npm', ['ci', '--offline', '--ignore-scripts'], { cwd: consumer, env: NPM_ENV });
}, 180_000);

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
  it('packs the compiled client, its types and the CLI sources, and no tests', () => {
    expect(tarballFiles).toEqual(
      expect.arrayContaining([
        'dist/lib/client/index.js',
        'dist/lib/client/index.d.ts',
        'dist/lib/errors.js',
        'bin/shardwal.mjs',
        'lib/cli/put-command.ts',
        'docs/client.md',
        'package.json',
      ]),
    );
    expect(tarballFiles.filter((file) => /^(test|bench|infra\/constructs)\//.test(file))).toEqual(
      [],
    );
    // Only the client and what it imports are compiled.
    expect(
      tarballFiles.filter(
        (file) => file.startsWith('dist/') && !file.startsWith('dist/lib/client/'),
      ),
    ).toEqual(expect.arrayContaining(['dist/lib/errors.js']));
    // Besides the errors, the reader's storage formats and the object store: no CLI, memtable or infra.
    const compiled = tarballFiles.filter(
      (f) => f.startsWith('dist/') && f.endsWith('.js') && !f.startsWith('dist/lib/client/'),
    );
    expect(compiled).toEqual(expect.arrayContaining(['dist/lib/errors.js', 'dist/lib/paths.js']));
    expect(
      compiled.filter(
        (f) =>
          !/^dist\/lib\/(errors|paths)\.js$/.test(f) &&
          !/^dist\/lib\/(wal|manifest|segment|snapshot|rows|store)\//.test(f),
      ),
    ).toEqual([]);
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
