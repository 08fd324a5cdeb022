/**
 * How long the installed CLI takes to start: `npm run bench:cli-start`.
 *
 * Builds the package (`npm run build`, without declarations), lays it out as
 * `npm pack` ships it (`bin/shardwal.mjs`, `dist/`, `package.json`: no
 * TypeScript sources, so the bin runs the compiled bundle) as
 * `node_modules/shardwal` of a temporary project (its own dependencies
 * resolve to this repository's `node_modules`), and times `shardwal
 * --help` there: the bin itself (what `npx` runs), and through `npx`, beside
 * two floors no package can go below: `npx` running a bin that does nothing
 * (an installed package `empty`, so npm's lookup of a local bin is the same
 * work), and `npx --version` (npm's start alone). Prints the median of `RUNS`
 * runs of each, in ms.
 */
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildPackage } from '../infra/build/build.js';
import { DIST_DIR, REPO_ROOT } from '../infra/build/paths.js';

const RUNS = 11;

/** GNU time, to read a child's CPU time (user + system), which a busy machine inflates less than wall time. */
const GNU_TIME = '/usr/bin/time';

interface Timing {
  wallMs: number;
  cpuMs: number | undefined;
}

/** Median wall and CPU time of `RUNS` runs of `command`. */
function median(command: string, args: string[], cwd: string): Timing {
  const walls: number[] = [];
  const cpus: number[] = [];
  const timed = existsSync(GNU_TIME);
  for (let i = 0; i < RUNS; i++) {
    const start = process.hrtime.bigint();
    const out = timed
      ? spawnSync(GNU_TIME, ['-f', 'cpu %U %S', command, ...args], { cwd, encoding: 'utf8' })
      : spawnSync(command, args, { cwd, encoding: 'utf8' });
    walls.push(Number(process.hrtime.bigint() - start) / 1e6);
    if (out.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${out.stderr}`);
    const cpu = /cpu ([\d.]+) ([\d.]+)/.exec(out.stderr ?? '');
    if (cpu) cpus.push((Number(cpu[1]) + Number(cpu[2])) * 1000);
  }
  const mid = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  return { wallMs: mid(walls), cpuMs: cpus.length === RUNS ? mid(cpus) : undefined };
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
  // The npx floor: a package whose bin is an empty script.
  const empty = join(consumer, 'node_modules', 'empty');
  mkdirSync(join(empty, 'bin'), { recursive: true });
  writeFileSync(join(empty, 'bin', 'empty.mjs'), '#!/usr/bin/env node\n', { mode: 0o755 });
  writeFileSync(
    join(empty, 'package.json'),
    '{"name":"empty","version":"1.0.0","bin":{"empty":"bin/empty.mjs"}}',
  );
  symlinkSync(join(empty, 'bin', 'empty.mjs'), join(consumer, 'node_modules', '.bin', 'empty'));
  const bin = join(dir, 'bin', 'shardwal.mjs');
  const rows = [
    ['shardwal --help (the bin)', median(process.execPath, [bin, '--help'], consumer)],
    ['npx shardwal --help', median('npx', ['--no-install', 'shardwal', '--help'], consumer)],
    ['npx empty (an empty bin)', median('npx', ['--no-install', 'empty'], consumer)],
    ['npx --version (npm alone)', median('npx', ['--version'], consumer)],
    ['node -e 0 (Node alone)', median(process.execPath, ['-e', '0'], consumer)],
  ] as const;
  console.log(`CLI start, median of ${RUNS} runs (packaged layout, compiled), wall / CPU ms:`);
  for (const [what, t] of rows) {
    const cpu = t.cpuMs === undefined ? '-' : t.cpuMs.toFixed(0);
    console.log(`  ${what.padEnd(28)} ${t.wallMs.toFixed(0).padStart(5)} / ${cpu.padStart(4)}`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
