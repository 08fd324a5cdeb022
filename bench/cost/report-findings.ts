/**
 * The benchmark's findings sections: export as the code does it today, and
 * the large-put break-even.
 */
import { gzipSync } from 'node:zlib';
import { SPILL_LIFECYCLE_DAYS } from '../../lib/memtable/spill.js';
import { ASSUMPTIONS } from './assumptions.js';
import { type Bill, GIB } from './billing/bill.js';
import type { PRICES_US_EAST_1 } from './billing/prices.js';
import { BATCH_ITEM_OVERHEAD_BYTES } from './codec.js';
import type { DeploymentFacts } from './deployment.js';
import { ItemClass } from './item-lifetimes.js';
import type { jobProfile } from './profiles.js';
import { RowVariant, rowGenerator } from './rows.js';
import type { Measurement } from './run-workload.js';
import {
  breakEvenBytes,
  itemUsd,
  SPILL_POINTER_BYTES,
  sharePast,
  spillObjectLifetimeSeconds,
  spillUsd,
} from './spill.js';
import type { SteadyHour } from './steady.js';
import { out, pct, sig, textTable, usd } from './text-table.js';

/**
 * Prints the measured exports: what each run folded, wrote and read. When
 * the bytes written per WAL byte folded grow from run to run, the export is
 * O(history): it also projects what that grows to at the standard workload.
 */
export function printExportAsCoded(
  m: Measurement,
  job: ReturnType<typeof jobProfile>,
  hour: SteadyHour,
  memoryMb: number,
): void {
  out();
  const exports = m.jobs.filter((j) => j.phase === 'export');
  const walObjectBytes = m.bytes.wal.createdBytes / Math.max(1, m.bytes.wal.created);
  const ratios = exports.map(
    (j) => j.bytes.export.createdBytes / Math.max(1, j.walObjectsNew * walObjectBytes),
  );
  out('Export as coded (measured runs of the scheduled export over the standard run):');
  out(
    textTable(
      exports.map((j, i) => ({
        export: i + 1,
        'WAL objects folded': j.walObjectsNew,
        'bytes written': j.bytes.export.createdBytes,
        'written per WAL byte folded': Number(ratios[i]!.toFixed(2)),
        'bytes read': j.bytes.export.readBytes + j.bytes.wal.readBytes,
        'S3 PUT/GET/LIST/DELETE': ['putIfAbsent', 'getStream', 'list', 'delete']
          .map((op) =>
            Object.values(j.s3).reduce(
              (sum, ops) => sum + ops[op as keyof typeof ops] + (op === 'getStream' ? ops.get : 0),
              0,
            ),
          )
          .join('/'),
        'objects created/retired': `${j.bytes.export.created}/${j.bytes.export.deleted + j.bytes.wal.deleted}`,
        'CPU ms': Math.round(j.cpuMs),
      })),
    ),
  );
  const grows = ratios.length >= 2 && ratios.at(-1)! > 1.5 * ratios[0]!;
  if (!grows) {
    out(
      `each run writes ~${sig(ratios.at(-1) ?? 0)} bytes per WAL byte it folds: O(new data), as the ` +
        'steady-state hour above assumes.',
    );
    return;
  }
  const walPerSecondPerShard =
    (hour.usage.rawBytes / 3600 / m.workload.shards) * (m.bytes.wal.createdBytes / m.rawBytes);
  const row = (hours: number) => {
    const history = walPerSecondPerShard * hours * 3600;
    const exportBytes = history * job.exportBytesPerWalByte;
    const cpuS = (job.cpuMsPerWalByte * history) / 1000;
    const runsSoFar = hours * 4;
    const keptBytes = ((exportBytes * (runsSoFar + 1)) / 2) * m.workload.shards;
    return {
      history: hours < 24 ? `${hours} h` : `${hours / 24} d`,
      'export object MB/shard': Number(sig(exportBytes / 1e6)),
      'CPU s per run (all shards)': Number(sig(cpuS * m.workload.shards)),
      'fits 15 min?': cpuS * m.workload.shards < 900 ? 'yes' : 'NO',
      'fits one PUT (5 GB)?': exportBytes < 5e9 ? 'yes' : 'NO',
      [`fits ${memoryMb} MB memory?`]: exportBytes < memoryMb * 1024 * 1024 * 0.8 ? 'yes' : 'NO',
      'exports stored GiB': Number(sig(keptBytes / GIB)),
    };
  };
  out(
    'the export grows with history (O(history)); the standard workload, projected, every export kept:',
  );
  out(textTable([1, 6, 24, 24 * 7, 24 * 30].map(row)));
  out(
    'The hour above prices export at O(new data), the design; as coded it stops fitting its Lambda within hours.',
  );
}

/**
 * Prints the large-put break-even, the standard and 1 MB puts past it, and
 * the spill decision as measured: the standard workload with the deployment's
 * threshold (`spilled`) beside the same workload, same seed, with every batch
 * kept in DynamoDB (`inline`).
 */
export function printSpill(
  m: Measurement,
  hour: SteadyHour,
  spilled: Bill,
  inline: Bill,
  deployment: DeploymentFacts,
  prices: typeof PRICES_US_EAST_1,
): void {
  out();
  const st = m.storage!;
  const batch = st[ItemClass.batch];
  const deletes = batch.deleted > 0;
  const lifetime =
    batch.meanLifetimeSeconds + (batch.expiring > 0 ? ASSUMPTIONS.ttlDelayDays * 86_400 : 0);
  const inputs = {
    itemOverheadBytes: BATCH_ITEM_OVERHEAD_BYTES,
    pointerItemBytes: BATCH_ITEM_OVERHEAD_BYTES + SPILL_POINTER_BYTES,
    deletedAtCommit: deletes,
    itemLifetimeSeconds: lifetime,
    pitr: deployment.table.pitr,
    objectLifetimeSeconds: spillObjectLifetimeSeconds(deployment.bucket.versioned),
    monthSeconds: ASSUMPTIONS.monthHours * 3600,
  };
  const threshold = breakEvenBytes(inputs, prices);
  const configured = deployment.settings.service.spillBytes;
  const sizes = (variant: RowVariant, rowsPerPut: number, count: number) => {
    const gen = rowGenerator({ variant, seed: 99 });
    return Array.from({ length: count }, () =>
      zlibSize(Buffer.from(JSON.stringify(gen.take(rowsPerPut)))),
    );
  };
  const standardSizes = sizes(RowVariant.event, 100, 200);
  const bigSizes = sizes(RowVariant.event, 1000, 40);
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  out(
    `Large-put break-even (bench/cost/spill.ts): batch items are ${deletes ? 'DELETED at the commit (billed like a write)' : 'expired by TTL'}, ` +
      `stored ${sig(lifetime)} s; a spilled object is kept ${sig(inputs.objectLifetimeSeconds / 86_400)} days ` +
      `(lifecycle rule ${SPILL_LIFECYCLE_DAYS} days to the next midnight, then a noncurrent version), a ${inputs.pointerItemBytes}-byte pointer item instead`,
  );
  out(
    textTable(
      [1024, 4096, 8192, 16_384, 19_456, 32_768, 200_000].map((bytes) => ({
        'compressed batch bytes': bytes,
        'DynamoDB item USD/M puts': Number((itemUsd(bytes, inputs, prices) * 1e6).toFixed(3)),
        'S3 spill USD/M puts': Number((spillUsd(bytes, inputs, prices) * 1e6).toFixed(3)),
      })),
    ),
  );
  out(
    `break-even: ${threshold === undefined ? 'never' : `${threshold} compressed bytes`}; the deployment spills above ` +
      `${configured === undefined ? 'nothing (off)' : `${configured} bytes`}; standard puts ` +
      `(mean ${Math.round(mean(standardSizes))} compressed bytes) past it: ` +
      `${pct(sharePast(standardSizes, configured), 1)}; 1 MB-body puts (1,000 rows, mean ${Math.round(mean(bigSizes))} bytes) past it: ` +
      `${pct(sharePast(bigSizes, configured), 1)}`,
  );
  const gb = hour.usage.rawBytes / GIB;
  out(
    `measured, same workload and seed: ${usd(spilled.usdPerGb)}/GB spilling, ${usd(inline.usdPerGb)}/GB with every batch in DynamoDB ` +
      `(${usd(inline.usdPerGb - spilled.usdPerGb)}/GB less, ${usd((inline.usdPerGb - spilled.usdPerGb) * gb)}/h at the standard load), ` +
      `for one S3 PUT (~${ASSUMPTIONS.s3PutLatencyMs} ms) on the put path per spilled put and one GET per flushed batch.`,
  );
}

/** Compressed bytes of a batch: gzip level 6, as `lib/memtable/batch-codec.ts` compresses one. */
function zlibSize(json: Buffer): number {
  return gzipSync(json, { level: 6 }).length;
}
