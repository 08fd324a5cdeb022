/**
 * The benchmark's printed sections (`main.ts` runs and orders them): the
 * deployment, the rows, the standard workload and its bill, the
 * sensitivity, the grid and the idle-shard ticks.
 */

import { ASSUMPTIONS } from './assumptions.js';
import { type Bill, bill, GIB } from './billing/bill.js';
import { provisionedCapacity } from './billing/dynamodb-pricing.js';
import { PRICES_US_EAST_1 } from './billing/prices.js';
import type { DeploymentFacts } from './deployment.js';
import type { measureIdleTicks } from './idle-tick.js';
import { ItemClass } from './item-lifetimes.js';
import { putProfile, type tickProfile } from './profiles.js';
import { gzipRatio, putBodyText, RowVariant, rowGenerator } from './rows.js';
import type { Measurement } from './run-workload.js';
import {
  type CpuProfile,
  provisionedBill,
  type SteadyHour,
  type SteadyInput,
  steadyHour,
} from './steady.js';
import { out, pct, sig, textTable, usd } from './text-table.js';
import { STANDARD, type Workload } from './workload.js';

/** Sizes of the runs, as printed in the header. */
export interface RunSizes {
  standardTicks: number;
  variantTicks: number;
  gridTicks: number;
  seed: number;
}

/** Prints the price table, the run sizes, the deployment facts and the assumptions. */
export function printHeader(d: DeploymentFacts, options: RunSizes): void {
  const p = PRICES_US_EAST_1;
  out(
    `shardwal cost benchmark: capacity units × the ${p.region} price table read ${p.readOn} (bench/cost/billing/prices.ts)`,
  );
  out(
    `seed ${options.seed}; standard run ${options.standardTicks} intervals, variants ${options.variantTicks}, ` +
      `10 puts/s grid cells ${options.gridTicks}; virtual time (units per put and per tick do not depend on speed)`,
  );
  out();
  out('Deployment (synthesized from cdk.json):');
  out(
    textTable(
      Object.entries(d.functions).map(([name, f]) => ({
        function: name,
        'memory MB': f.memoryMb,
        'timeout s': f.timeoutSeconds,
        arch: f.architecture,
        'log level': `${f.logLevel} (${f.logLevelSource})`,
        'log days': f.logRetentionDays ?? '-',
      })),
    ),
  );
  out(
    `table ${d.table.billingMode}, PITR ${d.table.pitr ? 'on' : 'off'}, TTL attribute ${d.table.ttlAttribute ?? 'none'}; ` +
      `bucket versioned ${d.bucket.versioned ? 'yes' : 'no'}, noncurrent versions expire after ${d.bucket.noncurrentDays ?? '-'} days; ` +
      `WAL retention ${d.settings.service.walRetentionMs / 86_400_000} days; ${d.alarms} alarms; schedules ` +
      d.schedules.map((s) => `${s.expression}`).join(', '),
  );
  const a = ASSUMPTIONS;
  out(
    `Modelled (bench/cost/assumptions.ts): TTL delete delay ${a.ttlDelayDays} d; DynamoDB ${a.dynamoLatencyMs} ms, S3 PUT ${a.s3PutLatencyMs} ms, ` +
      `GET ${a.s3GetLatencyMs} ms per request; 1 vCPU at ${a.fullVcpuMemoryMb} MB; history priced for ${a.historyMonths} month; ` +
      `verify sees ${a.verifyLagShare} of an export interval of WAL; provisioned at ${a.provisionedTargetUtilisation * 100} % target utilisation; ` +
      `${a.monthHours} h a month.`,
  );
}

/** Prints the row generator's variants and their gzip ratios. */
export function printRows(standard: Measurement): void {
  out();
  out('Rows (bench/cost/rows.ts): gzip level 6 ratio of a 100-row put body');
  out(
    textTable(
      [RowVariant.event, RowVariant.random].map((variant) => {
        const rows = rowGenerator({ variant, seed: 42, targetBytes: STANDARD.rowBytes }).take(100);
        const body = putBodyText(rows);
        return {
          variant,
          'body bytes': Buffer.byteLength(body),
          'gzip 6 ratio': Number(gzipRatio(body, 6).toFixed(2)),
        };
      }),
    ),
  );
  out(
    `standard run: ${standard.puts} puts, ${standard.rows} rows, ${sig(standard.rawBytes / standard.rows)} raw bytes/row`,
  );
}

/** Prints the standard run: units per put and per interval, storage, the bill of an hour, Lambda and logs. */
export function printStandard(
  m: Measurement,
  hour: SteadyHour,
  b: Bill,
  ticks: ReturnType<typeof tickProfile>,
  cpu: CpuProfile,
  maxWalObjectBytes: number,
): void {
  out();
  out(
    `Standard workload, measured (${m.puts} puts, ${m.ticks.length} ticks, ${m.jobs.length} jobs):`,
  );
  out(
    textTable(
      m.ledger
        .filter((r) => r.counters.requests > 0)
        .map((r) => {
          const jobRuns = m.jobs.filter((j) => j.phase === r.phase).length;
          const per = r.phase === 'put' ? m.puts : r.phase === 'tick' ? m.plan.ticks : jobRuns;
          const perLabel = r.phase === 'put' ? 'put' : r.phase === 'tick' ? 'interval' : 'run';
          return {
            phase: r.phase,
            operation: r.operation,
            per: perLabel,
            requests: Number(sig(r.counters.requests / per)),
            WCU: Number(sig(r.counters.writeUnits / per)),
            'index WCU': Number(sig(r.counters.indexWriteUnits / per)),
            RCU: Number(sig(r.counters.readUnits / per)),
            'failed conds': r.counters.failedConditions,
          };
        }),
    ),
  );
  const s3 = m.s3.tick.wal.putIfAbsent;
  out(
    `per interval: ${sig(s3 / m.plan.ticks)} WAL PUTs (${sig(m.bytes.wal.createdBytes / m.bytes.wal.created)} bytes each); ` +
      `put path S3 requests: ${Object.values(m.s3.put).reduce((s, k) => s + Object.values(k).reduce((a, c) => a + c, 0), 0)}; ` +
      `meter side-read mismatches: ${m.sideReadMismatches}; HTTP statuses ${JSON.stringify(m.statuses)}`,
  );
  out(
    `tick model (all runs, ${ticks.model.samples} ticks, max WCU residual ${sig(ticks.model.maxWriteResidual)}): ` +
      `base ${sig(ticks.model.base.readUnits)} RCU; per active shard ${sig(ticks.model.perActiveShard.requests)} requests, ` +
      `${sig(ticks.model.perActiveShard.writeUnits)} WCU, ${sig(ticks.model.perActiveShard.readUnits)} RCU; ` +
      `per batch ${sig(ticks.model.perBatch.writeUnits)} WCU, ${sig(ticks.model.perBatch.readUnits)} RCU`,
  );
  out(
    `wall time here (timing-dependent): put ${sig(m.wallMs.put / m.putInvocations)} ms/invocation metered; ` +
      `unmetered CPU ${sig(cpu.putInvocationMs)} ms/put, ${sig(cpu.flushMs)} ms/flush`,
  );

  out();
  out(
    'DynamoDB storage by item class (item bytes × lifetime; measured from what the code writes, deletes and expires):',
  );
  const st = m.storage!;
  out(
    textTable(
      Object.values(ItemClass)
        .filter((c) => st[c].items > 0)
        .map((c) => ({
          class: c,
          items: st[c].items,
          deleted: st[c].deleted,
          'TTL-expiring': st[c].expiring,
          'kept for good': st[c].permanent,
          'mean life s': Number(sig(st[c].meanLifetimeSeconds)),
          'standing GB at 100 puts/s': Number(
            sig(((st[c].byteSeconds / m.puts) * STANDARD.putsPerSecond) / 1e9),
          ),
        })),
    ),
  );

  out();
  out('Standard workload, one hour at steady state, on-demand (monthly = × 730):');
  const rows = b.lines.map((line) => ({
    component: line.component,
    item: line.item,
    'quantity/h': Number(sig(line.quantity)),
    unit: line.unit,
    'USD/h': Number(line.usd.toFixed(5)),
    'USD/GB': Number((line.usd / b.gbIngested).toFixed(5)),
    share: pct(line.usd, b.totalUsd),
  }));
  out(textTable(rows));
  out(
    textTable(
      Object.entries(b.byComponent)
        .sort((x, y) => y[1] - x[1])
        .map(([component, usdH]) => ({
          component,
          'USD/h': Number(usdH.toFixed(4)),
          'USD/GB': Number(b.byComponentUsdPerGb[component]!.toFixed(5)),
          share: pct(usdH, b.totalUsd),
        })),
    ),
  );
  out(`total ${usd(b.totalUsd)}/h for ${sig(b.gbIngested)} GB/h: ${usd(b.usdPerGb)}/GB`);
  out();
  out('DynamoDB units of the hour by part:');
  const wru = PRICES_US_EAST_1.dynamodb.writeRequestUnit.usd / 1e6;
  const rru = PRICES_US_EAST_1.dynamodb.readRequestUnit.usd / 1e6;
  out(
    textTable(
      hour.dynamo.map((d) => ({
        part: d.part,
        WCU: Number(sig(d.writeUnits)),
        'index WCU': Number(sig(d.indexWriteUnits)),
        RCU: Number(sig(d.readUnits)),
        'USD/GB': Number(
          (((d.writeUnits + d.indexWriteUnits) * wru + d.readUnits * rru) / b.gbIngested).toFixed(
            5,
          ),
        ),
      })),
    ),
  );
  out(
    `standing table ${sig(hour.tableBytes / 1e9)} GB (storage and PITR bill it; a Scan of the table would read all of it); ` +
      `S3 standing: WAL ${sig(hour.s3Bytes.wal / GIB)} GiB, exports ${sig(hour.s3Bytes.exports / GIB)} GiB; ` +
      `per-shard write rate ${sig(hour.shardWriteUnitsPerSecond)} WCU/s (partition limit ${ASSUMPTIONS.partitionWriteUnitsPerSecond})`,
  );
  printShardCeiling(m, ticks, maxWalObjectBytes);
  out();
  out(
    `Lambda (billed ms modelled from measured CPU; the ticker is billed for its whole window, and ` +
      `its ticks are busy ~${sig(hour.tickBusyShare * 100, 2)} % of each interval at its memory):`,
  );
  out(
    textTable(
      hour.lambda.map((l) => ({
        function: l.fn,
        'invocations/h': Number(sig(l.invocations)),
        'billed ms': Math.round(l.billedMs),
        'memory MB': l.memoryMb,
        'GB-s/h': Number(sig(l.gbSeconds)),
      })),
    ),
  );
  const lb = hour.logBytes;
  const logTotal = Object.values(lb).reduce((s, x) => s + x, 0);
  out(
    `CloudWatch log bytes per put: ${sig(logTotal / hour.puts)} (handler ${sig(lb.put / hour.puts)}, ` +
      `API access log ${sig(lb.access / hour.puts)}, Lambda platform lines ${sig(lb.platform / hour.puts)}, ` +
      `ticker ${sig(lb.tick / hour.puts)}, jobs ${sig(lb.jobs / hour.puts)}); ` +
      `${b.lines.find((l) => l.item === 'metrics')?.quantity ? Math.round(b.lines.find((l) => l.item === 'metrics')!.quantity * ASSUMPTIONS.monthHours) : 0} custom metrics (EMF)`,
  );
}

/**
 * Modelled variations of the standard hour, printed apart from the final
 * line: the assumed TTL delay at zero (expired items gone at once), and,
 * while export or verify still Scan the table (which evaluates, and bills,
 * every batch item still stored), their shard listing reading only shard
 * records (a registry or sparse index, as the design asks).
 */
export function printSensitivity(
  m: Measurement,
  input: SteadyInput,
  prices: typeof PRICES_US_EAST_1,
): void {
  const expiringBytes = Object.values(m.storage!).reduce((s, c) => s + c.expiringBytes, 0);
  const delayS = ASSUMPTIONS.ttlDelayDays * 86_400;
  const noDelay = {
    ...input,
    put: {
      ...input.put,
      byteSecondsPerPut: input.put.byteSecondsPerPut - (expiringBytes * delayS) / m.puts,
    },
  };
  // Shard listing by a registry is a variation only while export or verify still Scan the table.
  const scans = input.exportJob.scanUnitsPerTableByte + input.verifyJob.scanUnitsPerTableByte > 0;
  const rows = [
    { name: `as measured (TTL delay ${ASSUMPTIONS.ttlDelayDays} d assumed)`, input },
    { name: 'TTL delay 0 d', input: noDelay },
    ...(scans
      ? [
          {
            name: 'shard listing by registry, not a table Scan',
            input: { ...input, shardListing: 'registry' as const },
          },
          { name: 'both', input: { ...noDelay, shardListing: 'registry' as const } },
        ]
      : []),
  ];
  out();
  out('Sensitivity of the standard hour (modelled; the final line is the first row):');
  out(
    textTable(
      rows.map((row) => {
        const hour = steadyHour(row.input);
        const b = bill(hour.usage, prices);
        const scanRcu = hour.dynamo
          .filter((d) => d.part === 'export' || d.part === 'verify')
          .reduce((sum, d) => sum + d.readUnits, 0);
        return {
          variation: row.name,
          'standing table GB': Number(sig(hour.tableBytes / 1e9)),
          'export+verify RCU/h': Number(sig(scanRcu)),
          'USD/GB': Number(b.usdPerGb.toFixed(4)),
          'provisioned USD/GB': Number(
            provisionedBill(hour, prices, ASSUMPTIONS).usdPerGb.toFixed(4),
          ),
          'DynamoDB share': pct(b.byComponent.dynamodb ?? 0, b.totalUsd),
        };
      }),
    ),
  );
}

/** One row of the grid. */
export interface GridRow {
  w: Workload;
  source: 'measured' | 'modelled';
  hour: SteadyHour;
  onDemand: Bill;
  provisioned: Bill;
}

/** Prints the grid of workloads, on-demand and provisioned, with the limits each cell meets. */
export function printGrid(rows: readonly GridRow[], deploymentCap: number): void {
  out();
  out(
    `Grid (USD per GB ingested; "modelled" cells use the standard run's per-put units and the tick model; ` +
      `provisioned is modelled at ${ASSUMPTIONS.provisionedTargetUtilisation * 100} % target utilisation):`,
  );
  out(
    textTable(
      rows.map(({ w, source, hour, onDemand, provisioned }) => {
        const units = hour.usage.dynamodb!.units;
        const writesPerHour = units.writeUnits + units.indexWriteUnits;
        const limits: string[] = [];
        if (hour.shardWriteUnitsPerSecond > ASSUMPTIONS.partitionWriteUnitsPerSecond) {
          limits.push(`${sig(hour.shardWriteUnitsPerSecond)} WCU/s per shard > partition limit`);
        }
        if (hour.shardBytesPerInterval > deploymentCap) {
          limits.push(`${sig(hour.shardBytesPerInterval / 1e6)} MB/shard/tick > WAL object cap`);
        }
        if (hour.fannedOut > 0) {
          limits.push(`${sig(hour.fannedOut)} shards/tick fanned out to flush workers`);
        }
        return {
          workload: w.name,
          'puts/s': w.putsPerSecond,
          shards: w.shards,
          source,
          'GB/h': Number(sig(onDemand.gbIngested)),
          'on-demand USD/GB': Number(onDemand.usdPerGb.toFixed(4)),
          'DynamoDB share': pct(onDemand.byComponent.dynamodb ?? 0, onDemand.totalUsd),
          'provisioned USD/GB': Number(provisioned.usdPerGb.toFixed(4)),
          'provisioned WCU': Math.ceil(
            provisionedCapacity(writesPerHour, 3600, ASSUMPTIONS.provisionedTargetUtilisation),
          ),
          limits: limits.join('; ') || '-',
        };
      }),
    ),
  );
}

/** Prints the measured ticks over idle shards. */
export function printIdle(
  idle: Awaited<ReturnType<typeof measureIdleTicks>>,
  prices: typeof PRICES_US_EAST_1,
): void {
  out();
  out('Idle shards (an idle shard is not in the pending index):');
  out(
    textTable(
      idle.map((t) => ({
        'idle shards': t.idleShards,
        'active shards': t.activeShards,
        requests: t.units.requests,
        RCU: t.units.readUnits,
        WCU: t.units.writeUnits + t.units.indexWriteUnits,
        'S3 requests': Object.values(t.s3).reduce((s, n) => s + n, 0),
        'µUSD/tick': Number(
          (
            t.units.readUnits * prices.dynamodb.readRequestUnit.usd +
            (t.units.writeUnits + t.units.indexWriteUnits) * prices.dynamodb.writeRequestUnit.usd +
            t.s3.putIfAbsent * prices.s3.putCopyPostList.usd * 1e3
          ).toFixed(4),
        ),
      })),
    ),
  );
  const base = idle[0]!;
  out(
    `a tick with ${base.idleShards} idle shards costs ${base.units.requests} request (${base.units.readUnits} RCU), ` +
      `${usd((base.units.readUnits * prices.dynamodb.readRequestUnit.usd * 86_400 * 30) / 1e6)} a month at 1 s ticks, whatever N`,
  );
}

/**
 * One shard's ceiling at this workload's put shape: a shard's items share one
 * partition key, so its writes (each put's units, plus each tick's commit)
 * stay under the partition's write limit; and a tick flushes at most one WAL
 * object of `maxWalObjectBytes` per shard.
 */
function printShardCeiling(
  m: Measurement,
  ticks: ReturnType<typeof tickProfile>,
  maxWalObjectBytes: number,
): void {
  const w = m.workload;
  const intervalS = w.intervalMs / 1000;
  const wcuPerPut = m.units.put.writeUnits / m.puts;
  const tickWcuPerSecond = ticks.model.perActiveShard.writeUnits / intervalS;
  const byPartition =
    (ASSUMPTIONS.partitionWriteUnitsPerSecond - tickWcuPerSecond) / Math.max(wcuPerPut, 1e-9);
  // The cap counts the batch bytes the puts charged (row lines), a little over the raw rows.
  const byWalCap = maxWalObjectBytes / putProfile(m).jsonBytes / intervalS;
  const ceiling = Math.min(byPartition, byWalCap);
  const bound = byPartition <= byWalCap ? 'the partition write limit' : 'the WAL object cap';
  out(
    `per-shard ceiling at ${w.rowsPerPut} rows/put: ${sig(ceiling)} puts/s ` +
      `(${sig(ceiling * w.rowsPerPut)} rows/s, ${sig((ceiling * m.rawBytes) / m.puts / 2 ** 20)} MiB/s of rows), ` +
      `bound by ${bound}: ${ASSUMPTIONS.partitionWriteUnitsPerSecond} WCU/s at ${sig(wcuPerPut)} WCU a put and ` +
      `${sig(tickWcuPerSecond)} WCU/s of commits allow ${sig(byPartition)} puts/s; one ${sig(maxWalObjectBytes / 2 ** 20)} MiB ` +
      `WAL object per ${sig(intervalS)} s tick allows ${sig(byWalCap)}`,
  );
}
