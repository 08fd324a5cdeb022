/**
 * Keys and locations of a table. Tables live in their own key space in the
 * data bucket, beside `shards/`:
 *
 *   tables/<name>/metadata/v<N>.metadata.json           commits, create-if-absent
 *   tables/<name>/metadata/version-hint.text            a hint only (may lag)
 *   tables/<name>/metadata/<ms>-<uuid>-m<i>.avro        manifests
 *   tables/<name>/metadata/snap-<ms>-<uuid>.avro        manifest lists
 *   tables/<name>/data/<partition>/<ms>-<uuid>-<i>.parquet  data files
 *
 * `<ms>` is the wall-clock time the file was made: orphan removal
 * (`orphans.ts`) reads a file's age from its name, since the store port has
 * no modification times. The table's `location` is `<base>/tables/<name>`,
 * where `<base>` is the bucket's URI (`s3://bucket`, or a `file://` or
 * `http://` URI of the local store's folder); manifests record full URIs.
 */
import { InternalError } from '../errors.js';

/** Prefix of every table. */
export const TABLES_PREFIX = 'tables/';

/** Prefix of a table's objects. */
export function tablePrefix(table: string): string {
  return `${TABLES_PREFIX}${table}/`;
}

/** Prefix of a table's metadata folder. */
export function metadataPrefix(table: string): string {
  return `${tablePrefix(table)}metadata/`;
}

/** Key of metadata version `version`. */
export function metadataKey(table: string, version: number): string {
  return `${metadataPrefix(table)}v${version}.metadata.json`;
}

/** Key of the version hint. */
export function versionHintKey(table: string): string {
  return `${metadataPrefix(table)}version-hint.text`;
}

/** URI of metadata version `version` of the table at `location` (what a catalog points to). */
export function metadataUri(location: string, version: number): string {
  return `${location}/metadata/v${version}.metadata.json`;
}

/** The version a metadata key (or URI) names, or undefined. */
export function versionOfKey(key: string): number | undefined {
  const match = /\/metadata\/v(\d+)\.metadata\.json$/.exec(key);
  return match ? Number(match[1]) : undefined;
}

/** The creation time a data file, manifest or manifest list key carries in its name. */
export function madeAtOfKey(key: string): number | undefined {
  const match = /\/(?:snap-)?(\d{13,})-[0-9a-f-]{36}[^/]*\.(?:avro|parquet)$/.exec(key);
  return match ? Number(match[1]) : undefined;
}

/** The table's location URI. */
export function tableLocation(base: string, table: string): string {
  return `${base.replace(/\/+$/, '')}/${tablePrefix(table).slice(0, -1)}`;
}

/** Key of an object given its full URI and the table location it lies under. */
export function keyOfUri(location: string, table: string, uri: string): string {
  if (!uri.startsWith(`${location}/`)) {
    throw new InternalError(`${uri} is not under the table location ${location}`);
  }
  return tablePrefix(table) + uri.slice(location.length + 1);
}

/** URI of a key of `table`. */
export function uriOfKey(location: string, table: string, key: string): string {
  return `${location}/${key.slice(tablePrefix(table).length)}`;
}
