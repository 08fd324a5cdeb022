/**
 * `shardwal dump <shard>`: the shard's durable rows in WAL order as JSON
 * Lines, one row per line: `{"seq","offset","key"?,"delete"?,"row"?}` (a
 * delete has no `row`). Reads through the WAL reader from the local data
 * folder, or from the bucket given with `--bucket`.
 *
 * With the table at hand (always locally; `--table` in AWS) the dump starts
 * at the shard's AOF watermark and stops before `walNextPos`, so it shows
 * exactly the committed WAL. Without it, every WAL object listed is read.
 */
import { NotFoundError } from '../errors.js';
import { readShardRecord } from '../memtable/shard-record.js';
import { aofKey } from '../paths.js';
import type { CliCommand } from './command.js';
import { readDurableRows } from './durable-rows.js';
import { writeText } from './output.js';
import { shardArgument } from './shard-argument.js';
import { openTarget, requireStore, TARGET_OPTIONS } from './target.js';

/** The dump command. */
export const dumpCommand: CliCommand = {
  name: 'dump',
  args: ['<shard>'],
  summary: "print a shard's durable rows in order as JSON Lines",
  description:
    'Each line: {"seq","offset","key"?,"delete"?,"row"?}. Reads WAL objects from the local\n' +
    'data folder (running or stopped), or from the S3 bucket given with --bucket; add\n' +
    '--table to bound the dump by the shard record as the local dump is. Every object is\n' +
    'verified before its rows are printed; a corrupt or missing object stops the dump\n' +
    'with an error naming it.',
  options: { ...TARGET_OPTIONS },
  async run(input, io) {
    const shard = shardArgument(input);
    const target = await openTarget(input, io);
    try {
      const store = requireStore(target, 'dump');
      const record = target.table ? await readShardRecord(target.table, shard) : undefined;
      if (target.table && !record) throw new NotFoundError(`shard ${shard}`);
      const fromPos = record?.aofWatermark ?? 0;
      if (fromPos > 0) {
        await writeText(
          io.stderr,
          `note: WAL positions below ${fromPos} are folded into the AOF export ${aofKey(shard, fromPos)}; dumping the WAL from position ${fromPos}\n`,
        );
      }
      if (!target.table) {
        await writeText(
          io.stderr,
          'note: no --table, so every WAL object listed is dumped (including one not yet committed)\n',
        );
      }
      const rows = readDurableRows(store, shard, { fromPos, endPos: record?.walNextPos });
      let next = await rows.next();
      for (; !next.done; next = await rows.next()) {
        const { seq, offset, key, delete: isDelete, row } = next.value;
        await writeText(
          io.stdout,
          `${JSON.stringify({ seq, offset, key, delete: isDelete, row })}\n`,
        );
      }
      if (!target.table && next.value.objects === 0) {
        throw new NotFoundError(`WAL of shard ${shard} in ${target.description}`);
      }
    } finally {
      await target.close();
    }
    return 0;
  },
};
