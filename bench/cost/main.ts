/**
 * `npm run bench:cost`: cost per GB of shardwal in capacity units × the
 * dated price table, for the standard workload and a grid around it. See
 * `bench/cost.ts` for the options, `steady.ts` for how an hour is built and
 * `assumptions.ts` for what is modelled rather than measured.
 */

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HTTP_PRODUCER_DEFAULTS } from '../../lib/client/http-producer.js';
import { startDynaliteProcess } from '../support.js';
import { ASSUMPTIONS } from './assumptions.js';
import { bill } from './billing/bill.js';
import { PRICES_US_EAST_1 } from './billing/prices.js';
import { deploymentFacts } from './deployment.js';
import { finalLine } from './final-line.js';
import { measureIdleTicks } from './idle-tick.js';
import { captureOutput, compressedFraction, emptyCapture, mergeCapture } from './log-capture.js';
import { accessLogBytes, platformLogBytes } from './platform-logs.js';
import { jobProfile, type PutProfile, putProfile, tickProfile } from './profiles.js';
import {
  printGrid,
  printHeader,
  printIdle,
  printRows,
  printSensitivity,
  printStandard,
} from './report.js';
import { printExportAsCoded, printSpill } from './report-findings.js';
import { RowVariant } from './rows.js';
import { type BenchEnv, type Measurement, runWorkload } from './run-workload.js';
import {
  type CpuProfile,
  measuredTicks,
  modelledTicks,
  provisionedBill,
  type SteadyInput,
  steadyHour,
  type TickRates,
} from './steady.js';
import { out } from './text-table.js';
import {
  GRID_RATES,
  GRID_SHARDS,
  STANDARD,
  Transport,
  variantOf,
  type Workload,
} from './workload.js';

/** Options (environment): sizes of the runs. */
export interface CostBenchOptions {
  /** Intervals of the standard run (three rounds with export and verify between). */
  standardTicks: number;
  /** Intervals of the variant runs (SQS, idempotent, low-compressibility). */
  variantTicks: number;
  /** Intervals of each 10 puts/s grid run. */
  gridTicks: number;
  idleShards: number;
  seed: number;
}

/** Runs the benchmark and prints it; the last line is the final line. */
export async function runCostBench(options: CostBenchOptions): Promise<void> {
  const started = performance.now();
  const prices = PRICES_US_EAST_1;
  // cdk-nag's and the stack's synth-time warnings are the deployment's business, not this report's.
  const deployment = await captureOutput(emptyCapture(), async () =>
    deploymentFacts({ flushIntervalMs: STANDARD.intervalMs }),
  );
  const dynamo = await startDynaliteProcess();
  const dir = await mkdtemp(join(tmpdir(), 'shardwal-cost-'));
  const env: BenchEnv = {
    dynamo: dynamo.client,
    dynamoEndpoint: dynamo.endpoint,
    dir,
    deployment,
    ttlDelaySeconds: ASSUMPTIONS.ttlDelayDays * 86_400,
  };
  const metered = (workload: Workload, ticks: number, jobs = false) =>
    runWorkload(env, workload, { ticks, seed: options.seed, jobs, metered: true });
  const timing = (workload: Workload) =>
    runWorkload(env, workload, { ticks: 2, seed: options.seed + 1, jobs: false, metered: false });
  try {
    const standard = await metered(STANDARD, options.standardTicks, true);
    const lowComp = await metered(
      variantOf({ variant: RowVariant.random }, 'low-compressibility rows'),
      options.variantTicks,
    );
    const idem = await metered(
      variantOf({ idempotent: true }, 'HTTP + Idempotency-Key'),
      options.variantTicks,
    );
    const sqs = await metered(variantOf({ transport: Transport.sqs }, 'SQS'), options.variantTicks);
    const inline = await metered(
      variantOf({ spillOff: true }, 'standard, spill off'),
      options.variantTicks,
    );
    // The same bytes per second in the batches `shardwal/client` cuts by default (500 rows).
    const clientBatches = await metered(
      variantOf(
        { rowsPerPut: HTTP_PRODUCER_DEFAULTS.maxBatchRows, putsPerSecond: 20 },
        `client batches (${HTTP_PRODUCER_DEFAULTS.maxBatchRows} rows/put)`,
      ),
      options.variantTicks,
    );
    const gridRuns = new Map<string, Measurement>();
    for (const shards of GRID_SHARDS) {
      const w = variantOf({ putsPerSecond: GRID_RATES[0], shards });
      gridRuns.set(w.name, await metered(w, options.gridTicks));
    }
    const httpTiming = await timing(STANDARD);
    const sqsTiming = await timing(variantOf({ transport: Transport.sqs }, 'SQS timing'));
    const idle = await measureIdleTicks(env, options.idleShards);

    const runs = [standard, lowComp, idem, sqs, inline, clientBatches, ...gridRuns.values()];
    // The tick model is per batch of the standard shape (100 event rows, spilled): other batches weigh differently.
    const ticks = tickProfile(runs.filter((m) => ![lowComp, inline, clientBatches].includes(m)));
    const exportJob = jobProfile(standard, 'export');
    const verifyJob = jobProfile(standard, 'verify');
    const cpuOf = (t: Measurement): CpuProfile => {
      const flushes = t.ticks.reduce((s, tick) => s + tick.flushedWalObjects, 0);
      return {
        putInvocationMs: t.cpuMs.put / t.putInvocations,
        flushMs: t.cpuMs.tick / Math.max(1, flushes),
      };
    };
    const logs = emptyCapture();
    for (const m of runs) {
      mergeCapture(logs, m.logs.put);
      mergeCapture(logs, m.logs.tick);
      for (const j of m.jobs) mergeCapture(logs, j.logs);
    }
    const common = {
      tickProfile: ticks,
      exportJob,
      verifyJob,
      deployment,
      assumptions: ASSUMPTIONS,
      accessLogBytes: accessLogBytes(deployment.apiAccessLogFormat),
      logCompressedFraction: compressedFraction(logs),
      metrics: logs.metrics.size,
      schedulerPerHour: deployment.schedules.reduce((s, x) => s + x.perHour, 0),
    };
    const hourOf = (w: Workload, put: PutProfile, tickRates: TickRates, cpu: CpuProfile) => {
      const input: SteadyInput = {
        ...common,
        workload: w,
        put,
        ticks: tickRates,
        cpu,
        platformLogBytes: platformLogBytes(
          deployment.functions[w.transport === Transport.sqs ? 'putSqs' : 'putHttp'].memoryMb,
          deployment.functions[w.transport === Transport.sqs ? 'putSqs' : 'putHttp'].systemLogLevel,
        ),
      };
      const hour = steadyHour(input);
      return {
        input,
        hour,
        onDemand: bill(hour.usage, prices),
        provisioned: provisionedBill(hour, prices, ASSUMPTIONS),
      };
    };
    const intervalsOf = (m: Measurement) => m.plan.ticks;
    const measuredHour = (m: Measurement, cpu: CpuProfile) =>
      hourOf(m.workload, putProfile(m), measuredTicks(m.ticks, intervalsOf(m)), cpu);
    const httpCpu = cpuOf(httpTiming);
    const sqsCpu = cpuOf(sqsTiming);
    const std = measuredHour(standard, httpCpu);

    printHeader(deployment, options);
    printRows(standard);
    printStandard(
      standard,
      std.hour,
      std.onDemand,
      ticks,
      httpCpu,
      deployment.settings.service.maxWalObjectBytes,
    );
    printGrid(
      [
        ...GRID_RATES.flatMap((rate) =>
          GRID_SHARDS.map((shards) => {
            const w = variantOf({ putsPerSecond: rate, shards });
            const run = gridRuns.get(w.name);
            const result = run
              ? measuredHour(run, httpCpu)
              : hourOf(w, putProfile(standard), modelledTicks(ticks, w), httpCpu);
            return { w, source: run ? ('measured' as const) : ('modelled' as const), ...result };
          }),
        ),
        { w: standard.workload, source: 'measured' as const, ...std },
        { w: lowComp.workload, source: 'measured' as const, ...measuredHour(lowComp, httpCpu) },
        { w: idem.workload, source: 'measured' as const, ...measuredHour(idem, httpCpu) },
        { w: sqs.workload, source: 'measured' as const, ...measuredHour(sqs, sqsCpu) },
        { w: inline.workload, source: 'measured' as const, ...measuredHour(inline, httpCpu) },
        {
          w: clientBatches.workload,
          source: 'measured' as const,
          ...measuredHour(clientBatches, httpCpu),
        },
      ],
      deployment.settings.service.maxWalObjectBytes,
    );
    printSensitivity(standard, std.input, prices);
    printIdle(idle, prices);
    printExportAsCoded(standard, exportJob, std.hour, deployment.functions.export.memoryMb);
    printSpill(
      standard,
      std.hour,
      std.onDemand,
      measuredHour(inline, httpCpu).onDemand,
      deployment,
      prices,
    );
    out();
    out(
      'Timing-dependent figures (this machine, vary run to run): Lambda billed ms (CPU per invocation ' +
        'measured here, scaled to the function memory), the put/tick wall times above, the export and ' +
        'verify CPU. Everything else is capacity units, bytes and request counts from seeded inputs and ' +
        'reproduces exactly.',
    );
    out(`Run took ${((performance.now() - started) / 1000).toFixed(0)} s.`);
    out();
    out(finalLine(std.onDemand.usdPerGb));
  } finally {
    await dynamo.close();
    await rm(dir, { recursive: true, force: true });
  }
}
