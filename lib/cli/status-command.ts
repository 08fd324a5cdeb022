/** `shardwal status <shard>`: the shard's status JSON, as `GET /v1/shards/{shard}` answers it. */
import { shardStatus } from '../http/status-route.js';
import { booleanOption, type CliCommand } from './command.js';
import { writeText } from './output.js';
import { shardArgument } from './shard-argument.js';
import { openTarget, requireTable, TARGET_OPTIONS } from './target.js';

/** The status command. */
export const statusCommand: CliCommand = {
  name: 'status',
  args: ['<shard>'],
  summary: "print a shard's status JSON (nextSeq, durableSeq, walNextPos, …)",
  description:
    'Reads the shard record from the local data folder (running or stopped), or from the\n' +
    'DynamoDB table given with --table (region and credentials from the AWS environment).',
  options: {
    'data-dir': TARGET_OPTIONS['data-dir'],
    table: TARGET_OPTIONS.table,
    json: { type: 'boolean', description: 'print compact JSON on one line (default: indented)' },
  },
  async run(input, io) {
    const shard = shardArgument(input);
    const target = await openTarget(input, io);
    try {
      const status = await shardStatus(requireTable(target, 'status'), shard);
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
