/** `shardwal dump`: what runs (the declaration, with its help, is `dump-command.ts`). */
import { NotFoundError } from '../errors.js';
import { readShardRecord, type ShardRecord } from '../memtable/shard-record.js';
import type { ObjectStore } from '../store/object-store.js';
import type { WalRow } from '../wal/format.js';
import { booleanOption, type CliIo, type CommandInput } from './command.js';
import { dumpLine } from './dump-line.js';
import { readDurableRows, type WalRange } from './durable-rows.js';
import { findDumpExport, newestExportPosition, writeExportLines } from './export-rows.js';
import { writeText } from './output.js';
import { shardArgument } from './shard-argument.js';
import { openTarget, requireStore } from './target.js';

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

/** Runs `shardwal dump` (declared in `dump-command.ts`). */
export async function runDump(input: CommandInput, io: CliIo): Promise<number | undefined> {
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
}
