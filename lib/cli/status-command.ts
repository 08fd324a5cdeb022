/**
 * `shardwal status <shard> [seq]`: the shard's status JSON, as
 * `GET /v1/shards/{shard}` answers it, or with a seq the state of that batch,
 * as `GET /v1/shards/{shard}/seqs/{seq}` answers it (pending, durable, void,
 * quarantined or unknown; `lib/status/seq-state.ts`). The seq is read exactly:
 * a value past the largest seq the service can issue is a usage error naming
 * that limit, never rounded.
 */
import { seqStatus, shardStatus } from '../http/status-route.js';
import { booleanOption, type CliCommand } from './command.js';
import { seqArgument } from './integer-argument.js';
import { writeText } from './output.js';
import { shardArgument } from './shard-argument.js';
import { openTarget, requireTable, TARGET_OPTIONS } from './target.js';

/** The status command. */
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
  async run(input, io) {
    const shard = shardArgument(input);
    const seqText = input.args[1];
    const seq = seqText === undefined ? undefined : seqArgument('<seq>', seqText);
    const target = await openTarget(input, io);
    try {
      const table = requireTable(target, 'status');
      const status =
        seq === undefined
          ? await shardStatus(table, shard)
          : await seqStatus(table, shard, seq, target.store);
      const text = booleanOption(input, 'json')
        ? JSON.stringify(status)
        : JSON.stringify(status, null, 2);
      await writeText(io.stdout, `${text}\n`);
    } finally {
      await target.close();
    }
    return 0;
  },
};
