/**
 * The export function's input and dispatch: the schedule's event (anything
 * without a `shard`) exports every due shard; `{ "shard": "x" }` exports one.
 */
import { InvalidInputError } from '../errors.js';
import { assertShardName } from '../paths.js';
import type { ExportDeps } from './deps.js';
import { type ExportAllReport, exportAll } from './export-all.js';
import type { ExportReport } from './export-report.js';
import { exportShard } from './export-shard.js';

/** Runs what the event asks for; resolves to its report. */
export async function handleExportEvent(
  deps: ExportDeps,
  event: unknown,
  options: { shouldStop?: () => boolean } = {},
): Promise<ExportReport | ExportAllReport> {
  const shard =
    typeof event === 'object' && event !== null ? (event as { shard?: unknown }).shard : undefined;
  if (shard === undefined) return exportAll(deps, { shouldStop: options.shouldStop });
  if (typeof shard !== 'string')
    throw new InvalidInputError(
      'event.shard',
      `expected a shard name, got ${JSON.stringify(shard)}`,
    );
  assertShardName(shard, 'event.shard');
  return exportShard(deps, shard);
}
