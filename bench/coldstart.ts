/**
 * Cold starts of the Lambda functions: `npm run bench:coldstart`.
 *
 * Bundles every handler as the package ships it (`infra/build/bundles.ts`),
 * then imports each bundle in fresh Node processes with a Lambda-like
 * environment (dummy credentials and resource names, no network needed at
 * import) and prints, per function, the bytes its cold start loads (its
 * `index.mjs` and the chunks that imports statically; the chunks loaded on
 * first use only are in the second size) and the median time of its
 * `import()` over `RUNS` processes, beside the same import with
 * `--enable-source-maps` (what the functions once ran with, and what
 * `NODE_OPTIONS` turns on while debugging: Node then reads every map).
 * Hot-path functions (put HTTP, put SQS, status, flush tick) aim at 40 ms of
 * CPU or less.
 *
 * Then the floors: the same import of what a function needs whatever its
 * code, bundled with the same options. An empty module (what Node's
 * `import()` costs); the Node built-ins the DynamoDB client's bundle imports
 * at its cold start, imported alone (not bundled: esbuild drops a bare
 * built-in import); the DynamoDB client module imported and not built; the
 * client built as `lib/runtime/clients.ts` builds it (`new
 * DynamoDBClient({})` outside the local stack); with it, the middy and
 * Powertools wrapper of `lib/runtime/wrap.ts`; for the put functions the SQS
 * client too; for the tick, the S3 store as well. Each hot-path function is
 * printed beside its floor: when the floor is over the goal, no bundling of
 * the function's own code can meet it.
 *
 * Samples are taken round-robin (every bundle once, then again), so a change
 * in the machine's load strikes every row alike.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { buildFunctionBundles, coldStartOutputs } from '../infra/build/bundles.js';
import { BUNDLE_ENTRY, BUNDLE_FILE, REPO_ROOT } from '../infra/build/paths.js';
import {
  credentialChainBuildOptions,
  ESBUILD_OPTIONS,
} from '../infra/constructs/bundle-options.js';
import { HANDLERS } from '../infra/constructs/handlers.js';

const RUNS = 7;
const GOAL_MS = 40;

/** What every function imports whatever its code, as entry modules of their own. */
const FLOORS = {
  'empty module': 'export {};',
  'DynamoDB module': `import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
export const Client = DynamoDBClient;`,
  'DynamoDB client': `import { dynamoClientFromEnv } from './lib/runtime/clients.js';
export const dynamo = dynamoClientFromEnv();`,
  '+ wrapper': `import { dynamoClientFromEnv } from './lib/runtime/clients.js';
import { wrapHandler } from './lib/runtime/wrap.js';
export const dynamo = dynamoClientFromEnv();
export const handler = wrapHandler(async () => undefined);`,
  '+ SQS client': `import { dynamoClientFromEnv, sqsClientFromEnv } from './lib/runtime/clients.js';
import { wrapHandler } from './lib/runtime/wrap.js';
export const dynamo = dynamoClientFromEnv();
export const sqs = sqsClientFromEnv();
export const handler = wrapHandler(async () => undefined);`,
  '+ S3 store': `import { dynamoClientFromEnv, sqsClientFromEnv } from './lib/runtime/clients.js';
import { bucketStoreFromEnv } from './lib/runtime/object-store-from-env.js';
import { wrapHandler } from './lib/runtime/wrap.js';
export const dynamo = dynamoClientFromEnv();
export const sqs = sqsClientFromEnv();
export const store = bucketStoreFromEnv();
export const handler = wrapHandler(async () => undefined);`,
} as const;
type FloorName = keyof typeof FLOORS | 'Node built-ins';

/** Hot-path functions (goal: `GOAL_MS` of import CPU at most), each with the floor of the clients it builds. */
const HOT_PATH: Record<string, FloorName> = {
  'put-http': '+ SQS client',
  'put-sqs': '+ SQS client',
  'status-http': '+ wrapper',
  'flush-tick': '+ S3 store',
};

/** The floor whose Node built-ins are timed alone: what every function imports. */
const BUILTINS_OF: keyof typeof FLOORS = 'DynamoDB client';

/** What a deployed function's environment holds, with dummy values. */
const LAMBDA_ENV = {
  PATH: process.env.PATH ?? '',
  AWS_REGION: 'eu-west-1',
  AWS_ACCESS_KEY_ID: 'AKIDCOLDSTART',
  AWS_SECRET_ACCESS_KEY: 'coldstart',
  AWS_EC2_METADATA_DISABLED: 'true',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  SHARDWAL_TABLE: 'shardwal-coldstart',
  SHARDWAL_BUCKET: 'shardwal-coldstart',
  SHARDWAL_FLUSH_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/000000000000/shardwal-flush',
  SHARDWAL_INGEST_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/000000000000/ingest',
  SHARDWAL_INGEST_DLQ_URL: 'https://sqs.eu-west-1.amazonaws.com/000000000000/ingest-dlq',
  SHARDWAL_FLUSH_INTERVAL_MS: '1000',
  POWERTOOLS_SERVICE_NAME: 'shardwal',
  POWERTOOLS_METRICS_NAMESPACE: 'shardwal',
};

/**
 * Imports one bundle and prints how long the import took, in ms: wall time,
 * and the CPU time the process spent (user + system), which a busy machine
 * inflates less.
 */
const IMPORT_TIMER =
  'const t = performance.now(); const c = process.cpuUsage(); await import(process.argv[1]); const u = process.cpuUsage(c); console.log(performance.now() - t, (u.user + u.system) / 1000);';

interface ImportTime {
  wallMs: number;
  cpuMs: number;
}

/** One import of `bundle` in a fresh process. */
function importOnce(bundle: string, nodeOptions: readonly string[]): ImportTime {
  const out = execFileSync(
    process.execPath,
    [...nodeOptions, '--input-type=module', '-e', IMPORT_TIMER, pathToFileURL(bundle).href],
    { env: LAMBDA_ENV, encoding: 'utf8' },
  );
  const [wallMs, cpuMs] = (out.trim().split('\n').pop() ?? '').split(' ').map(Number);
  return { wallMs: wallMs!, cpuMs: cpuMs! };
}

/** A bundle to time: its entry file and the node options to import it with. */
interface Case {
  bundle: string;
  nodeOptions: readonly string[];
  samples: ImportTime[];
}

/** Times every case `RUNS` times, round-robin. */
function sample(cases: Case[]): void {
  for (let run = 0; run < RUNS; run++) {
    for (const c of cases) c.samples.push(importOnce(c.bundle, c.nodeOptions));
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function medians(c: Case): ImportTime {
  return {
    wallMs: median(c.samples.map((s) => s.wallMs)),
    cpuMs: median(c.samples.map((s) => s.cpuMs)),
  };
}

/**
 * Bytes the cold start loads (`coldStartOutputs`), bytes of every `.mjs`
 * output, and how many files the cold start loads: each costs its own
 * resolve, read, compile and link, so more, smaller chunks can import slower.
 */
function sizes(meta: Metafile): { loaded: number; all: number; files: number } {
  const bytes = (paths: Iterable<string>) => {
    let sum = 0;
    for (const path of paths) sum += meta.outputs[path]!.bytes;
    return sum;
  };
  return {
    loaded: bytes(coldStartOutputs(meta)),
    all: bytes(Object.keys(meta.outputs).filter((path) => path.endsWith('.mjs'))),
    files: coldStartOutputs(meta).length,
  };
}

/** The Node built-ins (`node:…`) that the outputs loaded at `meta`'s cold start import statically. */
function builtinsAtColdStart(meta: Metafile): string[] {
  const found = new Set<string>();
  for (const path of coldStartOutputs(meta)) {
    for (const imported of meta.outputs[path]!.imports) {
      if (imported.external && imported.kind === 'import-statement') found.add(imported.path);
    }
  }
  return [...found].filter((name) => name.startsWith('node:')).sort();
}

/** Bundles a floor's module source as the functions are bundled; its metafile. */
async function buildFloor(contents: string, outdir: string): Promise<Metafile> {
  const [floor, chain] = await Promise.all([
    build({
      ...ESBUILD_OPTIONS,
      absWorkingDir: REPO_ROOT,
      stdin: { contents, resolveDir: REPO_ROOT, sourcefile: 'floor.ts', loader: 'ts' },
      entryNames: BUNDLE_ENTRY,
      outdir,
      metafile: true,
      logLevel: 'warning',
    }),
    build({ ...credentialChainBuildOptions(outdir), metafile: true }),
  ]);
  return {
    inputs: { ...chain.metafile.inputs, ...floor.metafile.inputs },
    outputs: { ...floor.metafile.outputs, ...chain.metafile.outputs },
  };
}

const kib = (bytes: number) => (bytes / 1024).toFixed(0);
const ms = (t: ImportTime) => `${t.wallMs.toFixed(1)} / ${t.cpuMs.toFixed(1)}`;

const dir = mkdtempSync(join(tmpdir(), 'shardwal-coldstart-'));
try {
  const metafiles = await buildFunctionBundles(dir);
  const functions = Object.values(HANDLERS).map((name) => {
    const bundleDir = join(dir, name);
    return {
      name,
      size: sizes(metafiles[name]!),
      plain: { bundle: join(bundleDir, BUNDLE_FILE), nodeOptions: [], samples: [] } as Case,
      mapped: {
        bundle: join(bundleDir, BUNDLE_FILE),
        nodeOptions: ['--enable-source-maps'],
        samples: [],
      } as Case,
    };
  });
  const bundled = await Promise.all(
    Object.entries(FLOORS).map(async ([name, contents]) => {
      const outdir = join(dir, 'floors', name.replace(/\W+/g, '-'));
      const meta = await buildFloor(contents, outdir);
      const plain: Case = { bundle: join(outdir, BUNDLE_FILE), nodeOptions: [], samples: [] };
      return { name: name as FloorName, meta, size: sizes(meta), plain };
    }),
  );
  const builtins = builtinsAtColdStart(bundled.find((f) => f.name === BUILTINS_OF)!.meta);
  const builtinsFile = join(dir, 'floors', 'builtins.mjs');
  writeFileSync(builtinsFile, builtins.map((name) => `import '${name}';\n`).join(''));
  const floors = [
    bundled[0]!,
    {
      name: 'Node built-ins' as FloorName,
      size: { loaded: 0, all: 0, files: 1 },
      plain: { bundle: builtinsFile, nodeOptions: [], samples: [] } as Case,
    },
    ...bundled.slice(1),
  ];
  sample([...functions.flatMap((f) => [f.plain, f.mapped]), ...floors.map((f) => f.plain)]);

  console.log(
    `Function bundles: what a cold start loads, and its import() time, median of ${RUNS} fresh processes`,
  );
  console.log(
    'KiB: loaded at import (all files), in how many files. ms: wall / CPU. "maps": with --enable-source-maps',
  );
  console.log('function          KiB loaded (all) files        import ms         with maps ms');
  const floorCpu = (name: FloorName) => medians(floors.find((f) => f.name === name)!.plain).cpuMs;
  for (const f of functions) {
    const plain = medians(f.plain);
    const floor = HOT_PATH[f.name];
    const met = plain.cpuMs <= GOAL_MS ? 'goal met' : `CPU over ${GOAL_MS} ms`;
    const goal = floor
      ? `  (hot path: ${met}; floor "${floor}" ${floorCpu(floor).toFixed(1)}${floorCpu(floor) > GOAL_MS ? `, over ${GOAL_MS}: blocked` : ''})`
      : '';
    console.log(
      `${f.name.padEnd(15)} ${kib(f.size.loaded).padStart(12)} ${`(${kib(f.size.all)})`.padStart(7)} ${String(f.size.files).padStart(5)} ${ms(plain).padStart(16)} ${ms(medians(f.mapped)).padStart(20)}${goal}`,
    );
  }
  console.log('floors: what every function imports whatever its code, bundled alike');
  console.log(`(Node built-ins: ${builtins.join(' ')}, imported alone)`);
  for (const f of floors) {
    console.log(
      `${f.name.padEnd(15)} ${kib(f.size.loaded).padStart(12)} ${`(${kib(f.size.all)})`.padStart(7)} ${String(f.size.files).padStart(5)} ${ms(medians(f.plain)).padStart(16)}`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
