/**
 * Tables: a shard's history as an Apache Iceberg v2 table (docs/tables.md).
 * This room reads only the documented storage formats (WAL objects through
 * `lib/wal`), writes only under `tables/<name>/`, and never touches the
 * memtable. The contract:
 *
 * 1. Routes (`SHARDWAL_TABLES`) map shards to tables; names are valid in
 *    Glue and Athena (`names.ts`).
 * 2. Columns: `shard`, `seq`, `offset`, `position`, `ingested_at`, `key`,
 *    `op`, `row` (the exact text), plus declared typed columns holding a
 *    value only when their type holds it exactly (`project.ts`); adding one
 *    evolves the schema (`schema.ts`).
 * 3. Every WAL position of a routed shard is appended exactly once, in
 *    order, by a snapshot created create-if-absent as `v<N>.metadata.json`
 *    (`append.ts` A1-A5, `commit.ts` C1-C3); each snapshot records the
 *    high-water per shard (`progress.ts`).
 * 4. Maintenance changes no row and never removes a file a live snapshot or
 *    a racing commit references (`compact.ts` K1-K4, `expire.ts` E1-E3,
 *    `orphans.ts` O1-O3).
 * 5. The table's high-water is a floor under WAL retention (`floor.ts`);
 *    its lag is the age of the oldest WAL object it has not committed
 *    (`lag.ts`).
 * 6. The metadata file is the commit of record; a catalog's pointer (Glue)
 *    follows it forward only, and its failure never touches the commit
 *    (`catalog.ts` G1-G3, `glue-catalog.ts`).
 */
export { type AppendReport, appendTable } from './append.js';
export {
  type CatalogEntry,
  type CatalogMove,
  followCommit,
  moveCatalogPointer,
  type TableCatalog,
} from './catalog.js';
export {
  CATALOG_ENV,
  CatalogKind,
  catalogConfigFromEnv,
  GLUE_DATABASE_PATTERN,
  type GlueCatalogConfig,
} from './catalog-config.js';
export { compactTable } from './compact.js';
export type { TableDeps } from './deps.js';
export { expireSnapshots } from './expire.js';
export { TableFaultPoint } from './fault-points.js';
export { tableWalFloor, type WalFloor } from './floor.js';
export { catalogFromEnv, locationBaseFromEnv, tableDeps } from './from-env.js';
export { maxLagMs, type ShardLag, tableLag } from './lag.js';
export { defaultTableName, groupShardsByTable, TABLES_ENV, tableOfShard } from './names.js';
export { removeOrphans } from './orphans.js';
export { runTables, type TablesReport } from './run-tables.js';
export {
  optionsOf,
  TABLE_SCHEMAS_ENV,
  TABLE_SETTINGS,
  type TablesConfig,
  tablesConfigFromEnv,
} from './table-config.js';
export { currentDataFiles, type TableStatus, tableStatus } from './table-status.js';
