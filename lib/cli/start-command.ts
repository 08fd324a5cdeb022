/**
 * `shardwal start`: runs the local stack in the foreground until SIGINT or
 * SIGTERM, then stops it (final flush) and exits 0. Settings come from the
 * environment (`PORT`, `SHARDWAL_DATA_DIR`, `SHARDWAL_FLUSH_INTERVAL_MS`, …;
 * see `lib/local/local-settings.ts`). A second signal while stopping exits at
 * once with 130: buffered rows stay in the persisted memtable and are flushed
 * on the next start.
 */
import type { CliCommand } from './command.js';

/** The start command: its declaration; the code runs from `start-run.ts`, loaded only when it runs. */
export const startCommand: CliCommand = {
  name: 'start',
  args: [],
  summary: 'run the whole service locally (HTTP API, SQS, ticker) until Ctrl-C',
  description:
    'Environment: PORT (HTTP, default 3000), SHARDWAL_DATA_DIR (default ./.shardwal),\n' +
    'SHARDWAL_FLUSH_INTERVAL_MS (any interval a deployment accepts, default 1000),\n' +
    'SHARDWAL_DYNAMODB_PORT (default PORT+1), SHARDWAL_SQS_PORT (default PORT+2),\n' +
    'SHARDWAL_LOG_LEVEL (default WARN), SHARDWAL_LOCAL_EXPORT_EVERY_MS (the export job,\n' +
    'default 300000) and SHARDWAL_LOCAL_VERIFY_EVERY_MS (the scheduled verify of every\n' +
    'shard, default 3600000; either can be off), and every SHARDWAL_* service setting.\n' +
    'Writes <data-dir>/stack.json while it runs; stopping waits for a running job, then flushes.',
  options: {
    'data-dir': {
      type: 'string',
      value: '<dir>',
      description: 'data folder (overrides SHARDWAL_DATA_DIR)',
    },
    json: {
      type: 'boolean',
      description: 'print the endpoints as one JSON line (stack.json) instead of the banner',
    },
  },
  run: (input, io) => import('./start-run.js').then((m) => m.runStart(input, io)),
};
