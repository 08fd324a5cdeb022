/**
 * `shardwal status <shard> [seq]`: the shard's status JSON, as
 * `GET /v1/shards/{shard}` answers it, or with a seq the state of that batch,
 * as `GET /v1/shards/{shard}/seqs/{seq}` answers it (pending, durable, void,
 * quarantined or unknown; `lib/status/seq-state.ts`). The seq is read exactly:
 * a value past the largest seq the service can issue is a usage error naming
 * that limit, never rounded.
 */
import type { CliCommand } from './command.js';
import { TARGET_OPTIONS } from './options.js';

/** The status command: its declaration; the code runs from `status-run.ts`, loaded only when it runs. */
export const statusCommand: CliCommand = {
  name: 'status',
  args: ['<shard>', '[seq]'],
  summary: "print a shard's status JSON, or the state of one seq (pending, durable, void, …)",
  description:
    'Reads the shard record from the local data folder (running or stopped), or from the\n' +
    'DynamoDB table given with --table (region and credentials from the AWS environment).\n' +
    'With a seq: its state, decided as the status API decides it: pending, durable, void\n' +
    '(sealed, nothing stored), quarantined (a rebuild set its rows aside) or unknown (too\n' +
    'old to tell). A seq whose batch item expired is looked up in the WAL when the object\n' +
    'store is at hand (the local data folder, or --bucket).',
  options: {
    'data-dir': TARGET_OPTIONS['data-dir'],
    table: TARGET_OPTIONS.table,
    bucket: TARGET_OPTIONS.bucket,
    json: { type: 'boolean', description: 'print compact JSON on one line (default: indented)' },
  },
  run: (input, io) => import('./status-run.js').then((m) => m.runStatus(input, io)),
};
