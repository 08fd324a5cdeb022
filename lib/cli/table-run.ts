/** `shardwal table`: what runs (the declaration, with its help, is `table-command.ts`). */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NotFoundError } from '../errors.js';
import { dataDirLayout } from '../local/data-dir.js';
import { LOCAL_SETTINGS } from '../local/local-settings.js';
import { listShards } from '../memtable/list-shards.js';
import {
  currentDataFiles,
  groupShardsByTable,
  runTables,
  type TableStatus,
  tableDeps,
  tableStatus,
  tablesConfigFromEnv,
} from '../table/index.js';
import { TABLE_NAME_PATTERN } from '../table/names.js';
import type { TablesConfig } from '../table/table-config.js';
import { booleanOption, type CliIo, type CommandInput, stringOption } from './command.js';
import { UsageError } from './errors.js';
import { writeText } from './output.js';
import { openTarget, requireStore, requireTable } from './target.js';

const n = (value: number) => value.toLocaleString('en-US');

/** What `--files` prints for a file URI: a local path for `file://`, the URI otherwise. */
function printable(uri: string): string {
  return uri.startsWith('file://') ? fileURLToPath(uri) : uri;
}

function render(status: TableStatus, nowMs: number): string {
  if (status.version === null) return `table ${status.table}: not committed yet\n`;
  const lines = [
    `table ${status.table}  version ${status.version}  ${status.location}`,
    `current snapshot: ${n(status.files)} data files, ${n(status.records)} rows, ${n(status.bytes)} bytes; last commit ${Math.round((status.lastCommitAgeMs ?? 0) / 1000)} s ago`,
    '',
    'shard                 high-water    wal next   lag (WAL objects)',
    ...status.shards.map(
      (s) =>
        `${s.shard.padEnd(20)}  ${String(s.highWater ?? '-').padStart(10)}  ${String(s.walNext ?? '-').padStart(10)}   ${s.lagObjects ?? '-'}`,
    ),
    '',
    'snapshots (newest first):',
    ...[...status.snapshots].reverse().map((s) => {
      const appended = Object.entries(s.appended)
        .map(([shard, [from, to]]) => `${shard} [${from}, ${to})`)
        .join(', ');
      const age = Math.round((nowMs - s.timestampMs) / 1000);
      const refused = Object.entries(s.refused)
        .map(([column, count]) => `${column} ${count}`)
        .join(', ');
      return `  ${s.id}  seq ${s.sequence}  ${new Date(s.timestampMs).toISOString()} (${age} s ago)  ${s.operation}  ${s.records ?? '?'} rows${appended ? `  appended ${appended}` : ''}${refused ? `  refused (not exact in their type): ${refused}` : ''}`;
    }),
  ];
  return `${lines.join('\n')}\n`;
}

/** Runs `shardwal table` (declared in `table-command.ts`). */
export async function runTable(input: CommandInput, io: CliIo): Promise<number | undefined> {
  const name = input.args[0]!;
  if (!TABLE_NAME_PATTERN.test(name)) {
    throw new UsageError(`table names are 1-128 of a-z, 0-9 and '_', got ${JSON.stringify(name)}`);
  }
  const bucket = stringOption(input, 'bucket');
  const dataDir = path.resolve(
    io.cwd,
    stringOption(input, 'data-dir') ??
      (io.env[LOCAL_SETTINGS.dataDir.env] || LOCAL_SETTINGS.dataDir.default),
  );
  const base = bucket ? `s3://${bucket}` : `file://${dataDirLayout(dataDir).objectsDir}`;
  const config: TablesConfig = tablesConfigFromEnv(io.env) ?? {
    ...tablesConfigFromEnv({ SHARDWAL_TABLES: '*' })!,
    routes: [],
  };
  const commit = booleanOption(input, 'commit');
  const target = await openTarget(input, io);
  try {
    const deps = tableDeps(requireStore(target, 'table'), config, base);
    let shards: string[] = [];
    if (config.routes.length > 0 && target.table) {
      shards = groupShardsByTable(config.routes, await listShards(target.table)).get(name) ?? [];
    }
    if (commit) {
      if (config.routes.length === 0)
        throw new UsageError('--commit needs SHARDWAL_TABLES (which shards go to the table)');
      requireTable(target, 'table --commit');
      const report = await runTables({ ...deps, config: { ...config, commitMs: 1 } }, shards);
      const entry = report.tables.find((t) => t.table === name);
      if (entry?.error) throw new Error(entry.error);
      await writeText(
        io.stderr,
        `commit: ${entry?.append?.status ?? 'no shard routed to it'}, ${n(entry?.append?.rows ?? 0)} rows\n`,
      );
    }
    if (booleanOption(input, 'files')) {
      const files = await currentDataFiles(deps, name);
      for (const file of files) await writeText(io.stdout, `${printable(file)}\n`);
      return 0;
    }
    const status = await tableStatus(deps, name, shards);
    if (status.version === null && !commit)
      throw new NotFoundError(`table ${name} in ${target.description}`);
    await writeText(
      io.stdout,
      booleanOption(input, 'json')
        ? `${JSON.stringify(status, null, 2)}\n`
        : render(status, deps.now()),
    );
  } finally {
    await target.close();
  }
  return 0;
}
