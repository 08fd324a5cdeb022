/**
 * `npm run sim -- --schedules N --seed S [--shrink] [--trace]`: runs N
 * schedules from seed S (S, S+1, ...), prints a summary, and for the first
 * failing seed its violations and the shortest trace shrinking finds. Exits 1
 * when any schedule failed.
 */
import { runSchedule } from './run-schedule.js';
import { shrink } from './shrink.js';
import { paramsFor } from './workload.js';

interface Options {
  schedules: number;
  seed: number;
  shrink: boolean;
  trace: boolean;
  progressEvery: number;
}

function parse(argv: readonly string[]): Options {
  const options: Options = {
    schedules: 100,
    seed: 1,
    shrink: true,
    trace: true,
    progressEvery: 1_000,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = () => {
      const next = argv[++i];
      if (next === undefined || !/^\d+$/.test(next)) throw new Error(`${arg} needs a whole number`);
      return Number(next);
    };
    if (arg === '--schedules') options.schedules = value();
    else if (arg === '--seed') options.seed = value();
    else if (arg === '--progress') options.progressEvery = value();
    else if (arg === '--no-shrink') options.shrink = false;
    else if (arg === '--no-trace') options.trace = false;
    else
      throw new Error(
        `unknown option ${arg}; expected --schedules N --seed S [--no-shrink] [--no-trace]`,
      );
  }
  return options;
}

async function main(): Promise<void> {
  const options = parse(process.argv.slice(2));
  const started = Date.now();
  let failed = 0;
  let violations = 0;
  let firstFailure: Awaited<ReturnType<typeof runSchedule>> | undefined;
  const totals = { steps: 0, attempts: 0, acks: 0, kills: 0 };
  const lifecycle: Record<string, number> = {};
  for (let i = 0; i < options.schedules; i++) {
    const seed = options.seed + i;
    const result = await runSchedule(paramsFor(seed));
    totals.steps += result.stats.steps;
    totals.attempts += result.stats.attempts;
    totals.acks += result.stats.acks;
    totals.kills += result.stats.kills;
    for (const [name, n] of Object.entries(result.stats.lifecycle)) {
      lifecycle[name] = (lifecycle[name] ?? 0) + n;
    }
    if (result.violations.length > 0) {
      failed += 1;
      violations += result.violations.length;
      firstFailure ??= result;
      console.log(
        `seed ${seed}: ${result.violations.length} violation(s): ${result.violations[0]}`,
      );
    }
    if ((i + 1) % options.progressEvery === 0) {
      const seconds = ((Date.now() - started) / 1000).toFixed(0);
      console.log(`... ${i + 1} schedules, ${failed} failing, ${seconds} s`);
    }
  }
  const seconds = (Date.now() - started) / 1000;
  console.log(
    `${options.schedules} schedules from seed ${options.seed}: ${failed} failing, ${violations} violations, ` +
      `${totals.acks} acked puts of ${totals.attempts} attempts, ${totals.kills} puts killed, ` +
      `${totals.steps} scheduling steps, ${seconds.toFixed(1)} s`,
  );
  console.log(
    `lifecycle: ${Object.entries(lifecycle)
      .map(([name, n]) => `${n} ${name}`)
      .join(', ')}`,
  );
  if (!firstFailure) return;
  const shown = options.shrink ? await shrink(firstFailure) : firstFailure;
  console.log(`\nseed ${shown.params.seed}, shrunk to ${JSON.stringify(shown.params)}`);
  for (const violation of shown.violations) console.log(`  violation: ${violation}`);
  if (options.trace) {
    console.log('\ntrace:');
    for (const line of shown.trace) console.log(`  ${line}`);
  }
  process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 2;
});
