/**
 * Query and Scan, one page per request. A page ends at `Limit`, at the
 * configured `maxPageItems`, or once it holds about `maxPageBytes` (1 MB by
 * default, DynamoDB's cap, measured by the item-size estimate). As in
 * DynamoDB (and dynalite), a page that was cut returns a LastEvaluatedKey even
 * when nothing follows, and FilterExpression applies after the cut, so a page
 * may come back empty with a LastEvaluatedKey.
 */
import type {
  AttributeValue,
  QueryCommandInput,
  QueryCommandOutput,
  ScanCommandInput,
  ScanCommandOutput,
} from '@aws-sdk/client-dynamodb';
import { acceptValue, cloneItem, type Item, itemSize, valuesEqual } from './attribute-values.js';
import { evaluateCondition } from './evaluate-condition.js';
import type { PathOperand } from './expression-ast.js';
import { rangeBounds, selectKeys } from './key-condition.js';
import { project } from './projection.js';
import { requestExpressions } from './request-expressions.js';
import { validationError } from './sdk-errors.js';
import type { KeySchema } from './table-schema.js';
import { type IndexStore, lowerBound, type TableStore } from './table-store.js';

/** Page limits beyond the request's own `Limit`. */
export interface PageLimits {
  maxPageItems: number;
  maxPageBytes: number;
}

type PageOutput = Omit<QueryCommandOutput, '$metadata'> & Omit<ScanCommandOutput, '$metadata'>;

/** Runs one Query page. */
export function queryPage(
  store: TableStore,
  input: QueryCommandInput,
  limits: PageLimits,
): PageOutput {
  if (input.KeyConditionExpression === undefined) {
    throw validationError(
      'Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.',
    );
  }
  const index = indexOf(store, input.IndexName, input.ConsistentRead);
  const key = index ? index.schema.key : store.schema.key;
  const expressions = requestExpressions(input, [
    'KeyConditionExpression',
    'FilterExpression',
    'ProjectionExpression',
  ]);
  const { values, filter } = expressions;
  const selection = selectKeys(expressions.keyCondition!, key, values);
  if (filter) checkFilterHeads(filter, key);
  const keyNames = pageKeyNames(store, index);
  const start = startKey(input.ExclusiveStartKey, keyNames);
  if (start && !valuesEqual(start[key.hash.name]!, selection.hash)) {
    throw validationError(
      'The provided starting key is outside query boundaries based on provided conditions',
    );
  }
  const partitions = index ? index.partitions : store.partitions;
  const order = index ? index.order : store.order;
  const partition = partitions.get(selection.hash);
  const entries = partition?.items ?? [];
  const { below, beyond } = rangeBounds(selection.range, key.range?.name);
  let from = lowerBound(entries, (e) => (below(e) ? -1 : 1));
  let to = lowerBound(entries, (e) => (beyond(e) ? 1 : -1));
  const forward = input.ScanIndexForward !== false;
  if (start && forward) {
    from = Math.max(
      from,
      lowerBound(entries, (e) => (order(e, start) <= 0 ? -1 : 1)),
    );
  }
  if (start && !forward) {
    to = Math.min(
      to,
      lowerBound(entries, (e) => (order(e, start) < 0 ? -1 : 1)),
    );
  }
  // Lazily: a page reads only as far as its limits let it, however large the partition.
  const candidates = function* () {
    if (forward) for (let i = from; i < to; i++) yield entries[i]!;
    else for (let i = to - 1; i >= from; i--) yield entries[i]!;
  };
  return finishPage(candidates(), input, limits, keyNames, index, expressions);
}

/** Runs one Scan page (the table's own Scan order; parallel scans are not modeled). */
export function scanPage(
  store: TableStore,
  input: ScanCommandInput,
  limits: PageLimits,
): PageOutput {
  if (input.IndexName !== undefined)
    throw validationError('MemoryDynamoDB does not model Scan on an index');
  if (input.TotalSegments !== undefined) {
    throw validationError('MemoryDynamoDB does not model parallel Scan (TotalSegments)');
  }
  const expressions = requestExpressions(input, ['FilterExpression', 'ProjectionExpression']);
  const keyNames = pageKeyNames(store, undefined);
  const start = startKey(input.ExclusiveStartKey, keyNames);
  const partitions = store.partitions.scanOrder();
  let first = 0;
  let skipThrough: Item | undefined;
  if (start) {
    const token = store.partitions.tokenOf(start[store.schema.key.hash.name]!);
    first = lowerBound(partitions, (p) => (p.token < token ? -1 : 1));
    if (partitions[first]?.token === token) skipThrough = start;
  }
  const candidates = function* () {
    for (let p = first; p < partitions.length; p++) {
      const items = partitions[p]!.items;
      const from =
        p === first && skipThrough
          ? lowerBound(items, (e) => (store.order(e, skipThrough!) <= 0 ? -1 : 1))
          : 0;
      for (let i = from; i < items.length; i++) yield items[i]!;
    }
  };
  return finishPage(candidates(), input, limits, keyNames, undefined, expressions);
}

function indexOf(
  store: TableStore,
  name: string | undefined,
  consistent: boolean | undefined,
): IndexStore | undefined {
  if (name === undefined) return undefined;
  const index = store.indexes.get(name);
  if (!index) throw validationError(`The table does not have the specified index: ${name}`);
  if (consistent)
    throw validationError('Consistent reads are not supported on global secondary indexes');
  return index;
}

/** The attributes of a LastEvaluatedKey: the table's key, plus the index's when querying one. */
function pageKeyNames(store: TableStore, index: IndexStore | undefined): string[] {
  const names = [...store.schema.keyNames];
  if (index) {
    for (const name of [index.schema.key.hash.name, index.schema.key.range?.name]) {
      if (name && !names.includes(name)) names.push(name);
    }
  }
  return names;
}

function startKey(
  raw: Record<string, AttributeValue> | undefined,
  names: string[],
): Item | undefined {
  if (raw === undefined) return undefined;
  const given = Object.keys(raw);
  if (given.length !== names.length || names.some((n) => raw[n] === undefined)) {
    throw validationError(
      'The provided starting key is invalid: The provided key element does not match the schema',
    );
  }
  const key: Item = {};
  for (const name of names) key[name] = acceptValue(raw[name]);
  return key;
}

/** A Query filter may not name the queried key's attributes. */
function checkFilterHeads(
  filter: NonNullable<ReturnType<typeof requestExpressions>['filter']>,
  key: KeySchema,
): void {
  const heads = new Set<string>();
  const visit = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    const n = node as { kind?: string; elements?: (string | number)[] };
    if (n.kind === 'path' && n.elements) heads.add(n.elements[0] as string);
    for (const child of Object.values(node)) if (typeof child === 'object') visit(child);
  };
  visit(filter);
  for (const name of [key.hash.name, key.range?.name]) {
    if (name && heads.has(name)) {
      throw validationError(
        `Filter Expression can only contain non-primary key attributes: Primary key attribute: ${name}`,
      );
    }
  }
}

function finishPage(
  candidates: Iterable<Item>,
  input: QueryCommandInput | ScanCommandInput,
  limits: PageLimits,
  keyNames: string[],
  index: IndexStore | undefined,
  expressions: ReturnType<typeof requestExpressions>,
): PageOutput {
  if (input.Limit !== undefined && !(input.Limit >= 1)) {
    throw validationError(
      `1 validation error detected: Value '${input.Limit}' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1`,
    );
  }
  const limit = Math.min(input.Limit ?? Number.POSITIVE_INFINITY, limits.maxPageItems);
  const scanned: Item[] = [];
  let bytes = 0;
  for (const entry of candidates) {
    if (scanned.length >= limit || bytes >= limits.maxPageBytes) break;
    const item = index ? indexView(entry, index, keyNames) : entry;
    scanned.push(item);
    bytes += itemSize(item);
  }
  const cut = scanned.length >= limit || bytes >= limits.maxPageBytes;
  const { filter, values, projection } = expressions;
  const kept = filter ? scanned.filter((item) => evaluateCondition(filter, item, values)) : scanned;
  const output: PageOutput = { Count: kept.length, ScannedCount: scanned.length };
  if (input.Select !== 'COUNT') output.Items = kept.map((item) => shape(item, projection));
  const last = scanned.at(-1);
  if (cut && last) output.LastEvaluatedKey = project(last, keyNames.map(pathOf));
  return output;
}

function pathOf(name: string): PathOperand {
  return { kind: 'path', elements: [name], text: name };
}

/** What an index entry holds: keys only, keys plus INCLUDE attributes, or the whole item. */
function indexView(item: Item, index: IndexStore, keyNames: string[]): Item {
  if (index.schema.projection === 'ALL') return item;
  const view: Item = {};
  for (const name of [...keyNames, ...index.schema.nonKeyAttributes]) {
    if (Object.hasOwn(item, name)) view[name] = item[name]!;
  }
  return view;
}

function shape(item: Item, projection: PathOperand[] | undefined): Item {
  return projection ? project(item, projection) : cloneItem(item);
}
