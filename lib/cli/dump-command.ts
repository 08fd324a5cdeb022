/**
 * `shardwal dump <shard>`: the shard's durable rows as JSON Lines, one row per
 * line: `{"seq","offset","key"?,"delete"?,"row"?}` (a delete has no `row`).
 *
 * Like recovery, it starts from the newest export that verifies (a manifest,
 * or a legacy AOF export; WAL objects below it may be retired) and prints its
 * rows first — the live keyed rows by key (the snapshot), then the keyless
 * rows by offset (the segments, from the history floor), each with the seq
 * and offset it was put with — then the WAL after it in order, through the
 * WAL reader. With no export it prints the whole WAL. A note on stderr says
 * which export was used, and where kept history starts when history
 * retention dropped older segments. `--wal-only` prints only the WAL objects
 * from the watermark.
 *
 * With the table at hand (always locally; `--table` in AWS) the dump stops
 * before `walNextPos`, so it shows exactly the committed WAL. Without it,
 * every WAL object listed is read.
 */
import { NotFoundError } from '../errors.js';
import { readShardRecord, type ShardRecord } from '../memtable/shard-record.js';
import type { ObjectStore } from '../store/object-store.js';
import type { WalRow } from '../wal/format.js';
import { booleanOption, type CliCommand, type CliIo } from './command.js';
import { dumpLine } from './dump-line.js';
import { readDurableRows, type WalRange } from './durable-rows.js';
import { findDumpExport, newestExportPosition, writeExportLines } from './export-rows.js';
import { writeText } from './output.js';
import { shardArgument } from './shard-argument.js';
import { openTarget, requireStore, TARGET_OPTIONS } from './target.js';

const n = (value: number) => value.toLocaleString('en-US');

async function note(io: CliIo, text: string): Promise<void> {
  await writeText(io.stderr, `note: ${text}\n`);
}

/** One JSON Lines row, fields in a fixed order; the key and the row exactly as put (`lib/rows`). */
async function writeRow(io: CliIo, row: WalRow) {
  await writeText(io.stdout, `${dumpLine(row)}\n`);
}

/** `--wal-only`: the WAL from the watermark (without the table: from the newest export's position). */
async function walOnlyRange(
  io: CliIo,
  store: ObjectStore,
  shard: string,
  record: ShardRecord | undefined,
): Promise<WalRange> {
  const fromPos = record?.aofWatermark ?? (await newestExportPosition(store, shard));
  if (fromPos > 0) {
    await note(
      io,
      `WAL positions below ${fromPos} are covered by the export at position ${fromPos}; dumping the WAL from position ${fromPos}`,
    );
  }
  return { fromPos, endPos: record?.walNextPos };
}

/** Prints the rows of the export the dump starts from, if any; returns the WAL range after it. */
async function dumpExport(
  io: CliIo,
  store: ObjectStore,
  shard: string,
  record: ShardRecord | undefined,
): Promise<WalRange> {
  const endPos = record?.walNextPos;
  const used = await findDumpExport(store, shard, {
    maxPosition: endPos,
    onFallback: (f) =>
      note(
        io,
        `export ${f.key} does not verify (${f.error.name}: ${f.error.message}); passed over for the previous one`,
      ),
  });
  if (!used) {
    if ((record?.aofWatermark ?? 0) > 0) {
      await note(io, 'no export verifies; dumping the whole WAL from position 0');
    }
    return { fromPos: 0, endPos };
  }
  const { ref } = used;
  const keys = used.liveKeys === null ? 'its snapshot' : `${n(used.liveKeys)} live keys`;
  const kind = ref.kind === 'aof' ? 'legacy AOF export' : 'export';
  await note(
    io,
    `rows below WAL position ${ref.coveredPosition} come from the ${kind} ${ref.key} (${keys}, ${n(used.keylessRows)} keyless rows); the WAL follows from position ${ref.coveredPosition}`,
  );
  if (used.historyFloor > 0) {
    await note(
      io,
      `keyless rows of WAL positions below ${used.historyFloor} are past the history retention and no longer kept`,
    );
  }
  await writeExportLines(store, shard, used, (line) => writeText(io.stdout, `${line}\n`));
  return { fromPos: ref.coveredPosition, endPos, after: used };
}

/** The dump command. */
export const dumpCommand: CliCommand = {
  name: 'dump',
  args: ['<shard>'],
  summary: "print a shard's durable rows (export, then WAL tail) as JSON Lines",
  description:
    'Each line: {"seq","offset","key"?,"delete"?,"row"?}. Starts from the newest export that\n' +
    'verifies (its live keyed rows by key, then its keyless rows by offset, each with the seq\n' +
    'and offset it was put with), then the WAL after it in order; stderr names the export.\n' +
    'Reads the local data folder (running or stopped), or the S3 bucket given with --bucket;\n' +
    'add --table to bound the dump by the shard record as the local dump is. Every object is\n' +
    'verified before its rows are printed; a corrupt or missing object stops the dump with an\n' +
    'error naming it.',
  options: {
    ...TARGET_OPTIONS,
    'wal-only': {
      type: 'boolean',
      description: 'print only the WAL objects from the watermark (no export rows)',
    },
  },
  async run(input, io) {
    const shard = shardArgument(input);
    const target = await openTarget(input, io);
    try {
      const store = requireStore(target, 'dump');
      const record = target.table ? await readShardRecord(target.table, shard) : undefined;
      if (target.table && !record) throw new NotFoundError(`shard ${shard}`);
      if (!target.table) {
        await note(
          io,
          'no --table, so every WAL object listed is dumped (including one not yet committed)',
        );
      }
      const range = booleanOption(input, 'wal-only')
        ? await walOnlyRange(io, store, shard, record)
        : await dumpExport(io, store, shard, record);
      const rows = readDurableRows(store, shard, range);
      let next = await rows.next();
      for (; !next.done; next = await rows.next()) await writeRow(io, next.value);
      if (!target.table && next.value.objects === 0 && range.fromPos === 0) {
        throw new NotFoundError(`WAL of shard ${shard} in ${target.description}`);
      }
    } finally {
      await target.close();
    }
    return 0;
  },
};
