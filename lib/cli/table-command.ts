/**
 * `shardwal table <name>`: an Iceberg table's status (its snapshots, each
 * shard's lag behind the WAL, its files), `--files` the data files of the
 * current snapshot one per line (local paths for the local store: the input
 * of DuckDB's `read_parquet`), `--commit` an append now (the scheduled
 * committer's code; the shards are those `SHARDWAL_TABLES` routes to it).
 */
import type { CliCommand } from './command.js';
import { TARGET_OPTIONS } from './options.js';

/** The table command: its declaration; the code runs from `table-run.ts`, loaded only when it runs. */
export const tableCommand: CliCommand = {
  name: 'table',
  args: ['<name>'],
  summary: "an Iceberg table's snapshots, lag and files (--files: its data files, for DuckDB)",
  description:
    'Reads the table under tables/<name>/ in the local data folder (or --bucket). --files prints\n' +
    "the current snapshot's data files, one per line: DuckDB reads exactly the table with\n" +
    'read_parquet([...]) over them (a glob over the folder would count compacted rows twice).\n' +
    '--commit appends what is new now, for the shards SHARDWAL_TABLES routes to the table.',
  options: {
    ...TARGET_OPTIONS,
    files: {
      type: 'boolean',
      description: "print the current snapshot's data files, one per line",
    },
    commit: { type: 'boolean', description: 'append what is new now (needs SHARDWAL_TABLES)' },
    json: { type: 'boolean', description: 'print the status as JSON' },
  },
  run: (input, io) => import('./table-run.js').then((m) => m.runTable(input, io)),
};
