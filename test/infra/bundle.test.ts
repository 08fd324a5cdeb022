/**
 * Bundles every `functions/*.ts` as the package build does (`infra/build/
 * bundles.ts`: esbuild's JS API with the options the construct's synth
 * bundling uses, no Docker), then loads each bundle in a fresh Node
 * process, from a directory with no node_modules, with the network cut off:
 * the bundle (its entry and every chunk split from it) must be
 * self-contained, export a `handler` function, and contact nothing at
 * import time.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFunctionBundles, coldStartOutputs } from '../../infra/build/bundles.js';
import { BUNDLE_FILE } from '../../infra/build/paths.js';
import { FUNCTIONS_DIR, HANDLERS } from '../../infra/constructs/functions.js';

const run = promisify(execFile);

const entries = existsSync(FUNCTIONS_DIR)
  ? readdirSync(FUNCTIONS_DIR)
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
      .map((f) => basename(f, '.ts'))
      .sort()
  : [];

/** What a deployed function gets (dummy values): enough for module-scope client construction. */
const LAMBDA_LIKE_ENV = {
  PATH: process.env.PATH ?? '',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'AKIDBUNDLETEST',
  AWS_SECRET_ACCESS_KEY: 'bundle-test',
  AWS_EC2_METADATA_DISABLED: 'true',
  SHARDWAL_TABLE: 'shardwal-bundle-test',
  SHARDWAL_BUCKET: 'shardwal-bundle-test',
  SHARDWAL_FLUSH_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/shardwal-flush',
  SHARDWAL_FLUSH_INTERVAL_MS: '10000',
  POWERTOOLS_SERVICE_NAME: 'shardwal',
  POWERTOOLS_METRICS_NAMESPACE: 'shardwal',
};

/** Loads one bundle with sockets and DNS disabled; prints what it exports and what it tried to reach. */
const LOADER = `
import net from 'node:net';
import dns from 'node:dns';
const attempts = [];
net.Socket.prototype.connect = function (...args) {
  const to = args[0];
  attempts.push('connect ' + (to && typeof to === 'object' ? (to.host ?? to.path) + ':' + to.port : String(to)));
  // Fail the connection once the caller has attached its error listener.
  setImmediate(() => this.destroy(new Error('network is off in the bundle test')));
  return this;
};
dns.lookup = (host, ...rest) => {
  attempts.push('dns ' + host);
  const cb = rest.pop();
  process.nextTick(cb, new Error('network is off in the bundle test'));
};
const mod = await import(process.argv[1]);
// Then every chunk loaded on first use only (the S3 client of put and status): each must load from the bundle alone.
const { readdirSync } = await import('node:fs');
const dir = new URL('.', process.argv[1]);
let chunks = 0;
for (const file of readdirSync(dir)) {
  if (file.endsWith('.mjs')) { await import(new URL(file, dir).href); chunks++; }
}
await new Promise((resolve) => setTimeout(resolve, 100));
console.log(JSON.stringify({ exports: Object.keys(mod), handler: typeof mod.handler, chunks, attempts }));
`;

interface Loaded {
  exports: string[];
  handler: string;
  /** Files of the bundle imported, the entry included. */
  chunks: number;
  attempts: string[];
}

let outdir: string;
let metafiles: Record<string, Metafile> = {};
const loaded = new Map<string, Loaded | Error>();

/**
 * The AWS SDK clients each function builds at its cold start: those it calls
 * on every invocation, and no other. The put and status functions load the S3
 * client on first use only (a spill, a seq read from the WAL).
 */
const CLIENTS_AT_COLD_START: Record<string, string[]> = {
  'put-http': ['client-dynamodb', 'client-sqs'],
  'put-sqs': ['client-dynamodb', 'client-sqs'],
  'status-http': ['client-dynamodb'],
  'flush-tick': ['client-dynamodb', 'client-s3', 'client-sqs'],
  'flush-worker': ['client-dynamodb', 'client-s3'],
  export: ['client-dynamodb', 'client-s3'],
  recover: ['client-dynamodb', 'client-s3'],
  'table-commit': ['client-dynamodb', 'client-s3'],
};

/** Packages of the source files bundled into `outputs` of `meta` (`@aws-sdk/client-s3` → `client-s3`). */
function packagesIn(meta: Metafile, outputs: string[]): Set<string> {
  const found = new Set<string>();
  for (const output of outputs) {
    for (const input of Object.keys(meta.outputs[output]!.inputs)) {
      const name = /node_modules\/(?:@[^/]+\/)?([^/]+)\//.exec(input)?.[1];
      if (name) found.add(name);
    }
  }
  return found;
}

beforeAll(async () => {
  if (entries.length === 0) return;
  outdir = mkdtempSync(join(tmpdir(), 'shardwal-bundles-'));
  metafiles = await buildFunctionBundles(outdir);
  // Two at a time: one per core.
  const queue = [...entries];
  const worker = async () => {
    for (let e = queue.shift(); e !== undefined; e = queue.shift()) {
      const bundle = pathToFileURL(join(outdir, e, BUNDLE_FILE)).href;
      try {
        const { stdout } = await run(
          process.execPath,
          ['--input-type=module', '-e', LOADER, bundle],
          {
            cwd: outdir,
            env: LAMBDA_LIKE_ENV,
            timeout: 20_000,
          },
        );
        loaded.set(e, JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as Loaded);
      } catch (error) {
        loaded.set(e, error as Error);
      }
    }
  };
  await Promise.all([worker(), worker()]);
}, 60_000);

afterAll(() => {
  if (outdir) rmSync(outdir, { recursive: true, force: true });
});

describe('function bundles', () => {
  it('has handler entry points in functions/ to bundle', () => {
    expect(
      entries,
      `no functions/*.ts found in ${FUNCTIONS_DIR}: nothing would be deployed`,
    ).not.toEqual([]);
  });

  it('deploys every entry point and has an entry point for every deployed handler', () => {
    expect(entries).toEqual(Object.values(HANDLERS).sort());
  });

  for (const entry of entries) {
    it(`${entry}: its cold start loads the SDK clients it calls on every invocation, and no other`, () => {
      const meta = metafiles[entry]!;
      const clients = [...packagesIn(meta, coldStartOutputs(meta))].filter((name) =>
        name.startsWith('client-'),
      );
      expect(clients.sort()).toEqual(CLIENTS_AT_COLD_START[entry]);
    });

    it(`${entry}: has the S3 client in its bundle, and no zod`, () => {
      const meta = metafiles[entry]!;
      const all = packagesIn(meta, Object.keys(meta.outputs));
      expect(all.has('client-s3')).toBe(true);
      expect(all.has('zod')).toBe(false);
    });

    it(`${entry}: loads standalone, every chunk too, exports a handler function, and contacts nothing at import`, () => {
      const result = loaded.get(entry);
      if (result instanceof Error) throw result;
      expect(result?.handler).toBe('function');
      expect(result?.chunks).toBeGreaterThan(1);
      expect(result?.attempts).toEqual([]);
    });
  }
});
