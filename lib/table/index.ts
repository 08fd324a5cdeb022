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
export { catalogFromEnv, locationBaseFromEnv, tableDeps } from './from-env.js';
export { groupShardsByTable } from './names.js';
export { runTables } from './run-tables.js';
export { tablesConfigFromEnv } from './table-config.js';
export { currentDataFiles, type TableStatus, tableStatus } from './table-status.js';
