/**
 * Part of `npm run bench:table`: the keyless history of one shard kept two
 * ways, measured on the store the bench built (WAL objects, and the table
 * its first run committed):
 *   - today's: the export stores the rows as JSON segments;
 *   - zero-copy: the export lists the table's data files as table
 *     segments (`lib/export/table-segments.ts`) and stores nothing more.
 * Both are the export's own fold (`foldExport`) over the same WAL range;
 * the bench checks both manifests record the same lines. It prints the
 * bytes each stores, the bytes per GB retained 30 days (history for 30
 * days, WAL objects for their 7-day retention), and the CPU time of reading
 * the whole history back with the readers' `readSegment` (median of
 * `runs`, each on a fresh store so no read reuses another's cache).
 */
import { foldExport } from '../lib/export/fold-export.js';
import { encodeManifest } from '../lib/manifest/codec.js';
import type { Manifest } from '../lib/manifest/format.js';
import { readSegment } from '../lib/segment/reader.js';
import { FsObjectStore } from '../lib/store/fs-store.js';
import type { TableHold } from '../lib/table/floor.js';
import { tablePrefix } from '../lib/table/paths.js';
import { FRAME_GZIP_LEVEL } from '../lib/wal/framing.js';

/** What the comparison needs from the bench. */
export interface HistoryInput {
  root: string;
  shard: string;
  table: string;
  /** WAL objects of the shard: positions [0, objects). */
  objects: number;
  walBytes: number;
  rows: number;
  runs: number;
  settle: () => void;
  cpuMs: () => number;
}

/** The bytes a manifest and what it stores take (a table segment stores none). */
function storedBytes(manifest: Manifest): number {
  const listed = [...manifest.parts, ...manifest.segments].reduce((sum, r) => sum + r.bytes, 0);
  return listed + encodeManifest(manifest).byteLength;
}

/** Sums of the lines a manifest's segments record. */
function lines(manifest: Manifest): string {
  const sum = (name: 'rows' | 'rawBytes') =>
    manifest.segments.reduce((total, s) => total + s[name], 0);
  return `${sum('rows')} rows, ${sum('rawBytes')} bytes`;
}

/** Runs the comparison and prints it. */
export async function compareHistory(input: HistoryInput): Promise<void> {
  const { root, shard, objects, walBytes } = input;
  const store = new FsObjectStore(root);
  const fold = async (tableHold?: TableHold) => {
    const folded = await foldExport(store, {
      shard,
      target: objects,
      candidates: [],
      createdAtMs: Date.now(),
      gzipLevel: FRAME_GZIP_LEVEL,
      historyRetentionMs: 0,
      tableHold,
    });
    if (!folded.ok) throw new Error('the export fold stopped at a gap');
    return folded.manifest;
  };
  const today = await fold();
  const zeroCopy = await fold({ table: input.table, highWater: objects });
  if (lines(today) !== lines(zeroCopy) || zeroCopy.segments.some((s) => s.v !== 2)) {
    throw new Error(`the manifests differ: ${lines(today)} / ${lines(zeroCopy)}`);
  }
  let tableBytes = 0;
  for await (const key of store.list(tablePrefix(input.table))) {
    tableBytes += (await store.get(key))!.byteLength;
  }

  const readCpu = async (manifest: Manifest) => {
    const times: number[] = [];
    for (let run = 0; run < input.runs; run++) {
      const fresh = new FsObjectStore(root);
      let rows = 0;
      input.settle();
      const start = input.cpuMs();
      for (const segment of manifest.segments) {
        await readSegment(fresh, shard, segment, () => {
          rows += 1;
        });
      }
      times.push(input.cpuMs() - start);
      if (rows !== input.rows) throw new Error(`read ${rows} rows, expected ${input.rows}`);
    }
    return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
  };
  const readToday = await readCpu(today);
  const readZeroCopy = await readCpu(zeroCopy);

  const todayStored = storedBytes(today);
  const zeroStored = storedBytes(zeroCopy);
  const wal = walBytes * (7 / 30);
  const perGb = {
    today: todayStored + wal,
    derived: todayStored + tableBytes + wal,
    zeroCopy: zeroStored + tableBytes + wal,
  };
  const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;
  const x = (bytes: number) => (bytes / todayStored).toFixed(2);
  console.log('\n4. the keyless history: stored as segments, or the table (zero-copy)');
  console.log(
    `   export of the same range (foldExport): today ${mb(todayStored)} (segments + manifest); zero-copy ${mb(zeroStored)} (the manifest: ${zeroCopy.segments.length} table segment(s)); both record ${lines(today)}`,
  );
  console.log(`   the table (data files + metadata):  ${mb(tableBytes)}`);
  console.log(
    '   per byte of history retained 30 days (history 30 d + WAL objects 7 d), against segments alone:',
  );
  console.log(
    `     today ${x(perGb.today)}; with the table derived beside the segments ${x(perGb.derived)}: ratio ${(perGb.derived / perGb.today).toFixed(2)}×; zero-copy ${x(perGb.zeroCopy)}: ratio ${(perGb.zeroCopy / perGb.today).toFixed(2)}× (goal ≤ 1.2×)`,
  );
  console.log(
    `   reading the whole history back (readSegment, CPU): segments ${Math.round(readToday)} ms, the table ${Math.round(readZeroCopy)} ms (${(readToday / readZeroCopy).toFixed(2)}× the segments' speed)`,
  );
}
