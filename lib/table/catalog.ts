/**
 * Catalogs. The metadata file a commit creates create-if-absent is the
 * commit of record (`commit.ts` C1): the table is readable from its path
 * alone. A catalog (AWS Glue, `glue-catalog.ts`) only holds a pointer to it,
 * for engines that find tables by name (Athena). Invariants:
 *
 * G1. The pointer only moves forward: to a metadata file of a higher
 *     version than the one it names (a pointer that names none, or a file
 *     that is not a `v<N>.metadata.json`, is behind). A slow committer never
 *     moves it back over a faster one's newer version.
 * G2. It moves with the catalog's optimistic check: an update conditional on
 *     the catalog's version of the entry it read. A concurrent update makes
 *     it re-read and decide again (G1), at most `MAX_ATTEMPTS` times.
 * G3. A catalog failure never fails, undoes or repeats the Iceberg commit:
 *     `followCommit` reports it and returns. A lagging pointer is moved by
 *     the next commit, or by the catch-up every table run does
 *     (`run-tables.ts`), since each move goes to the newest version there is.
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { Metric } from '../observability/metric-names.js';
import { logger, metrics } from '../observability/telemetry.js';
import { versionOfKey } from './paths.js';

/** What a catalog holds for one table. */
export interface CatalogEntry {
  /** The metadata file it points to; undefined before the first commit reached it. */
  metadataLocation: string | undefined;
  /** The catalog's version of the entry, for the conditional update (G2). */
  versionToken: string | undefined;
  /** The rest of the entry, as the adapter needs it to write the entry back. */
  readonly definition: unknown;
}

/** A catalog of table pointers (the port; `glue-catalog.ts` is the adapter). */
export interface TableCatalog {
  /** The catalog's name in reports (`glue`). */
  readonly name: string;
  /** The entry of `table`; a `NotFoundError` when the catalog has none. */
  read(table: string): Promise<CatalogEntry>;
  /**
   * Points `table` at `metadataLocation` (and `previousMetadataLocation` at
   * what `entry` pointed to), only if the entry is still `entry`'s version:
   * `'conflict'` when another update came first.
   */
  update(
    table: string,
    entry: CatalogEntry,
    metadataLocation: string,
  ): Promise<'updated' | 'conflict'>;
}

/** Reads and conditional updates before a move gives up (G2). */
export const MAX_ATTEMPTS = 5;

/** The outcome of moving a pointer. */
export interface CatalogMove {
  table: string;
  /** `moved`: now at `to`; `current`: it already was (or was ahead, G1); `conflicts`: gave up after `MAX_ATTEMPTS`. */
  status: 'moved' | 'current' | 'conflicts';
  from: string | undefined;
  to: string;
  attempts: number;
}

/** The metadata version a location names, or undefined (G1: such a pointer is behind). */
function versionOf(location: string | undefined): number | undefined {
  return location === undefined ? undefined : versionOfKey(location);
}

/** Moves `table`'s pointer forward to `location` (G1, G2); throws what the catalog threw. */
export async function moveCatalogPointer(
  catalog: TableCatalog,
  table: string,
  location: string,
): Promise<CatalogMove> {
  const target = versionOf(location);
  let from: string | undefined;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const entry = await catalog.read(table);
    from = entry.metadataLocation;
    const current = versionOf(from);
    if (from === location || (current !== undefined && target !== undefined && current >= target)) {
      return { table, status: 'current', from, to: location, attempts: attempt };
    }
    if ((await catalog.update(table, entry, location)) === 'updated') {
      return { table, status: 'moved', from, to: location, attempts: attempt };
    }
  }
  return { table, status: 'conflicts', from, to: location, attempts: MAX_ATTEMPTS };
}

/**
 * Moves the pointer after a commit (or in the catch-up); never throws (G3).
 * A failure or a move that gave up is logged and counted
 * (`TableCatalogErrors`); the commit stands.
 */
export async function followCommit(
  catalog: TableCatalog,
  table: string,
  location: string,
): Promise<CatalogMove | undefined> {
  try {
    const move = await moveCatalogPointer(catalog, table, location);
    if (move.status === 'conflicts') {
      reportCatalogError(catalog, table, location, `${MAX_ATTEMPTS} concurrent updates in a row`);
    }
    return move;
  } catch (error) {
    reportCatalogError(catalog, table, location, error);
    return undefined;
  }
}

function reportCatalogError(
  catalog: TableCatalog,
  table: string,
  location: string,
  error: unknown,
): void {
  logger.error(
    'catalog pointer not moved; the Iceberg commit stands, the next run moves the pointer',
    {
      catalog: catalog.name,
      table,
      metadataLocation: location,
      error: error instanceof Error ? error : String(error),
    },
  );
  metrics.addMetric(Metric.tableCatalogErrors, MetricUnit.Count, 1);
}
