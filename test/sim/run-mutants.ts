/**
 * `npm run mutants [-- --schedules N] [-- --only name,name...] [-- --tests-first]`: plants each bug of
 * `mutants.ts` alone in the working tree, runs the simulation and the
 * mutant's own tests against it, restores the file, and prints who killed
 * what. Too slow for CI; run it before resolving a change to a guarantee.
 * Files are restored even when the run is interrupted (SIGINT).
 * `--tests-first` runs the mutant's tests before the simulation and skips the
 * simulation when they already killed it (a quicker triage of a new list).
 */

import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { MUTANTS, type Mutant } from './mutants.js';

const ROOT = join(import.meta.dirname, '..', '..');

interface Verdict {
  name: string;
  sim: string;
  tests: string;
  killed: boolean;
}

function options() {
  const argv = process.argv.slice(2);
  const get = (flag: string) => {
    const at = argv.indexOf(flag);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  return {
    schedules: Number(get('--schedules') ?? 300),
    seed: Number(get('--seed') ?? 1),
    only: get('--only'),
    testsFirst: argv.includes('--tests-first'),
  };
}

/** Applies `mutant`; returns the originals to restore. */
function apply(mutant: Mutant): Map<string, string> {
  const originals = new Map<string, string>();
  for (const edit of mutant.edits) {
    const path = join(ROOT, edit.file);
    const text = originals.get(path) ?? readFileSync(path, 'utf8');
    if (!originals.has(path)) originals.set(path, text);
    const current = readFileSync(path, 'utf8');
    const count = current.split(edit.find).length - 1;
    if (count !== 1) {
      restore(originals);
      throw new Error(`${mutant.name}: expected one match in ${edit.file}, found ${count}`);
    }
    writeFileSync(path, current.replace(edit.find, edit.replace));
  }
  return originals;
}

function restore(originals: Map<string, string>): void {
  for (const [path, text] of originals) writeFileSync(path, text);
}

function runSim(schedules: number, seed: number): string {
  const out = spawnSync(
    'node',
    [
      '--import',
      'tsx',
      'test/sim/cli.ts',
      '--schedules',
      String(schedules),
      '--seed',
      String(seed),
      '--no-shrink',
      '--no-trace',
      '--progress',
      '100000',
    ],
    {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 1_200_000,
      env: { ...process.env, POWERTOOLS_METRICS_DISABLED: 'true', POWERTOOLS_LOG_LEVEL: 'SILENT' },
    },
  );
  if (out.status === 0) return 'survived';
  const first = out.stdout.split('\n').find((line) => line.startsWith('seed '));
  if (first) return `killed: ${first.slice(0, 140)}`;
  return `killed (exit ${out.status}${out.signal ? ` ${out.signal}` : ''}): ${(out.stderr || out.stdout).trim().split('\n').at(-1)?.slice(0, 120)}`;
}

function runTests(files: string[]): string {
  if (files.length === 0) return 'none';
  const out = spawnSync('npx', ['vitest', 'run', ...files], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 600_000,
  });
  if (out.status === 0) return 'survived';
  const failed = /Tests\s+.*?(\d+) failed/.exec(stripVTControlCharacters(out.stdout));
  return `killed: ${failed ? `${failed[1]} failing` : `exit ${out.status}`}`;
}

function main(): void {
  const { schedules, seed, only, testsFirst } = options();
  const names = only?.split(',');
  const mutants = MUTANTS.filter((m) => !names || names.includes(m.name));
  if (names && mutants.length !== names.length) {
    throw new Error(
      `--only: no mutant named ${names.filter((n) => !MUTANTS.some((m) => m.name === n)).join(', ')}`,
    );
  }
  const verdicts: Verdict[] = [];
  let current: Map<string, string> | undefined;
  process.on('SIGINT', () => {
    if (current) restore(current);
    process.exit(130);
  });
  for (const mutant of mutants) {
    try {
      current = apply(mutant);
    } catch (error) {
      // The code moved under the mutant (another change rewrote the line): say so, run the rest.
      const stale = `not applied: ${(error as Error).message}`;
      verdicts.push({ name: mutant.name, sim: stale, tests: stale, killed: false });
      console.log(`STALE    ${mutant.name}\n    ${stale}`);
      continue;
    }
    try {
      const tests = runTests(mutant.tests);
      const sim = testsFirst && tests.startsWith('killed') ? 'not run' : runSim(schedules, seed);
      const verdict = {
        name: mutant.name,
        sim,
        tests,
        killed: !(sim === 'survived' && tests === 'survived'),
      };
      verdicts.push(verdict);
      console.log(
        `${verdict.killed ? 'KILLED  ' : 'SURVIVED'} ${mutant.name}\n    sim:   ${sim}\n    tests: ${tests}`,
      );
    } finally {
      restore(current);
      current = undefined;
    }
  }
  const killed = verdicts.filter((v) => v.killed).length;
  console.log(
    `\n${killed} of ${verdicts.length} mutants killed (simulation: ${schedules} schedules from seed ${seed})`,
  );
  console.log('\n| mutant | simulation | its tests |\n|---|---|---|');
  for (const v of verdicts)
    console.log(
      `| ${v.name} | ${v.sim.startsWith('killed') ? 'killed' : v.sim.startsWith('not applied') ? 'stale' : v.sim === 'not run' ? 'not run' : 'survived'} | ${v.tests.startsWith('killed') ? 'killed' : v.tests.startsWith('not applied') ? 'stale' : v.tests} |`,
    );
  if (killed < verdicts.length) process.exitCode = 1;
}

main();
