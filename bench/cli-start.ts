/**
 * How long the installed CLI takes to start: `npm run bench:cli-start`.
 *
 * Builds the package (`npm run build`, without declarations), lays it out as
 * `npm pack` ships it (`bin/shardwal.mjs`, `dist/`, `package.json`: no
 * TypeScript sources, so the bin runs the compiled bundle) as
 * `node_modules/shardwal` of a temporary project (its own dependencies
 * resolve to this repository's `node_modules`), and times `shardwal
 * --help` there: the bin itself (what `npx` runs), and through `npx`, beside
 * `npx --version` (npm's own start, which no package can go below). Prints
 * the median of `RUNS` runs of each, in ms.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildPackage } from '../infra/build/build.js';
import { DIST_DIR, REPO_ROOT } from '../infra/build/paths.js';

const RUNS = 11;

function medianMs(run: () => void): number {
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = process.hrtime.bigint();
    run();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(RUNS / 2)]!;
}

await buildPackage({ types: false });
const work = mkdtempSync(join(tmpdir(), 'shardwal-cli-start-'));
try {
  // A project with the package installed: node_modules/shardwal and its bin link.
  const consumer = join(work, 'consumer');
  const dir = join(consumer, 'node_modules', 'shardwal');
  mkdirSync(join(dir, 'bin'), { recursive: true });
  mkdirSync(join(consumer, 'node_modules', '.bin'));
  symlinkSync(join(dir, 'bin', 'shardwal.mjs'), join(consumer, 'node_modules', '.bin', 'shardwal'));
  writeFileSync(join(consumer, 'package.json'), '{"name":"consumer","private":true}');
  cpSync(join(REPO_ROOT, 'bin', 'shardwal.mjs'), join(dir, 'bin', 'shardwal.mjs'));
  cpSync(join(REPO_ROOT, 'package.json'), join(dir, 'package.json'));
  cpSync(join(DIST_DIR, 'cli'), join(dir, 'dist', 'cli'), { recursive: true });
  cpSync(join(DIST_DIR, 'infra'), join(dir, 'dist', 'infra'), { recursive: true });
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'));
  const quiet = { cwd: consumer, stdio: 'ignore' } as const;
  const bin = join(dir, 'bin', 'shardwal.mjs');
  const rows = [
    [
      'shardwal --help (the bin)',
      medianMs(() => execFileSync(process.execPath, [bin, '--help'], quiet)),
    ],
    [
      'npx shardwal --help',
      medianMs(() => execFileSync('npx', ['--no-install', 'shardwal', '--help'], quiet)),
    ],
    ['npx --version (npm alone)', medianMs(() => execFileSync('npx', ['--version'], quiet))],
    ['node -e 0 (Node alone)', medianMs(() => execFileSync(process.execPath, ['-e', '0'], quiet))],
  ] as const;
  console.log(`CLI start, median of ${RUNS} runs (packaged layout, compiled):`);
  for (const [what, ms] of rows)
    console.log(`  ${what.padEnd(28)} ${ms.toFixed(0).padStart(5)} ms`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
