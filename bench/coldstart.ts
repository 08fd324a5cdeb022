/**
 * Cold starts of the Lambda functions: `npm run bench:coldstart`.
 *
 * Bundles every handler as the package ships it (`infra/build/bundles.ts`),
 * then imports each bundle in fresh Node processes with a Lambda-like
 * environment (dummy credentials and resource names, no network needed at
 * import) and prints, per function, the bundle's size and the median time of
 * its `import()` over `RUNS` processes, beside the same bundle imported with
 * `--enable-source-maps` and its map linked (what the functions ran with
 * before). Hot-path functions (put HTTP, put SQS, status, flush tick) aim at
 * 40 ms or less.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildFunctionBundles } from '../infra/build/bundles.js';
import { BUNDLE_FILE } from '../infra/build/paths.js';
import { HANDLERS } from '../infra/constructs/handlers.js';

const RUNS = 7;
const HOT_PATH = new Set(['put-http', 'put-sqs', 'status-http', 'flush-tick']);
const GOAL_MS = 40;

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

function medianImportMs(bundle: string, nodeOptions: string[]): ImportTime {
  const samples: ImportTime[] = [];
  for (let i = 0; i < RUNS; i++) {
    const out = execFileSync(
      process.execPath,
      [...nodeOptions, '--input-type=module', '-e', IMPORT_TIMER, pathToFileURL(bundle).href],
      { env: LAMBDA_ENV, encoding: 'utf8' },
    );
    const [wallMs, cpuMs] = (out.trim().split('\n').pop() ?? '').split(' ').map(Number);
    samples.push({ wallMs: wallMs!, cpuMs: cpuMs! });
  }
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(RUNS / 2)]!;
  return {
    wallMs: median(samples.map((s) => s.wallMs)),
    cpuMs: median(samples.map((s) => s.cpuMs)),
  };
}

const dir = mkdtempSync(join(tmpdir(), 'shardwal-coldstart-'));
try {
  await buildFunctionBundles(dir);
  console.log(`Function bundles: size and import time, median of ${RUNS} fresh processes`);
  console.log('ms: wall / CPU. "maps": its map linked, run with --enable-source-maps (as before)');
  console.log('function        bundle KiB        import ms          with maps ms');
  for (const name of Object.values(HANDLERS)) {
    const bundle = join(dir, name, BUNDLE_FILE);
    const kib = statSync(bundle).size / 1024;
    const plain = medianImportMs(bundle, []);
    // The same bundle with its map linked and Node reading it, as before.
    const linked = join(dir, name, 'linked.mjs');
    appendFileSync(linked, readFileSync(bundle));
    appendFileSync(linked, `\n//# sourceMappingURL=${BUNDLE_FILE}.map\n`);
    const mapped = medianImportMs(linked, ['--enable-source-maps']);
    const met = plain.wallMs <= GOAL_MS ? 'goal met' : `over ${GOAL_MS} ms`;
    const goal = HOT_PATH.has(name) ? `  (hot path: ${met})` : '';
    const ms = (t: ImportTime) => `${t.wallMs.toFixed(1)} / ${t.cpuMs.toFixed(1)}`;
    console.log(
      `${name.padEnd(15)} ${kib.toFixed(0).padStart(10)} ${ms(plain).padStart(16)} ${ms(mapped).padStart(21)}${goal}`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
