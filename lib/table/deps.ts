/** What the committer and maintenance need. */
import { randomInt, randomUUID } from 'node:crypto';
import type { ObjectStore } from '../store/object-store.js';
import type { TableCatalog } from './catalog.js';
import type { ParquetCodec } from './data-file.js';
import type { TableFaultHook } from './fault-points.js';
import type { HistoryKeptFrom } from './retain.js';
import type { TablesConfig } from './table-config.js';

/** Dependencies of the table jobs. */
export interface TableDeps {
  store: ObjectStore;
  /** The bucket's URI the table locations start with (`s3://bucket`, `file:///…`, `http://…`). */
  locationBase: string;
  config: TablesConfig;
  now: () => number;
  /** Fresh ids (tests pass seeded ones). */
  uuid?: () => string;
  snapshotId?: () => number;
  codec?: ParquetCodec;
  faults?: TableFaultHook;
  /** A catalog whose pointer follows each commit (Glue); unset: path-based only. */
  catalog?: TableCatalog;
  /** Where export retention keeps each shard's history from (`retain.ts` H1); unset: no row leaves a table. */
  historyKeptFrom?: HistoryKeptFrom;
  /** Called with the typed columns a commit could not store exactly (metric, log). */
  onRefused?: (table: string, counts: Record<string, number>) => void;
}

/** A fresh UUID. */
export function newUuid(deps: TableDeps): string {
  return deps.uuid?.() ?? randomUUID();
}

/** A fresh snapshot id: a positive long that JSON and Avro carry exactly. */
export function newSnapshotId(deps: TableDeps): number {
  return deps.snapshotId?.() ?? randomInt(1, 2 ** 48 - 1);
}
