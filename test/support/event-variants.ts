/**
 * Events near the shapes a scheduled or on-demand function takes: every
 * sample in `events/`, then fields set, replaced or removed with values that
 * sit on the edges of its checks (wrong types, holes, symbol keys, class
 * instances, JSON text that is not an object, inherited fields). For
 * property tests comparing an event parser with a reference.
 */
import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';

const EVENTS_DIR = new URL('../../events/', import.meta.url);

/** Every sample event, parsed. */
export const SAMPLE_EVENTS: unknown[] = readdirSync(EVENTS_DIR)
  .filter((file) => file.endsWith('.json'))
  .map((file) => JSON.parse(readFileSync(new URL(file, EVENTS_DIR), 'utf8')) as unknown);

/** Fields the parsers read, and one they do not. */
const FIELDS = [
  'version',
  'id',
  'detail-type',
  'source',
  'account',
  'time',
  'region',
  'resources',
  'detail',
  'shard',
  'mode',
  'extra',
  '__proto__',
] as const;

const symbolKeyed = () => ({ [Symbol('s')]: 1 });
const hiddenSymbol = () => Object.defineProperty({}, Symbol('s'), { value: 1, enumerable: false });
const inheriting = () => Object.create({ shard: 'orders' }) as object;

/** Values on the edges of the checks; a function is called for a fresh value each time. */
const VALUES: readonly unknown[] = [
  undefined,
  null,
  0,
  7,
  true,
  '',
  'x',
  'orders',
  '../x',
  'Not A Shard',
  'verify',
  'rebuild',
  'repair',
  'Scheduled Event',
  'Object Created',
  'aws.scheduler',
  'aws.events',
  'aws.s3',
  '2026-03-12T10:20:00Z',
  '{}',
  '{"a":1}',
  '[1]',
  'null',
  '1',
  'not json',
  [],
  ['a'],
  [1],
  ['a', 2],
  // A hole: index 1 is absent.
  // biome-ignore lint/suspicious/noSparseArray: the hole is the case
  ['a', , 'b'],
  {},
  { a: 1 },
  () => Object.create(null) as object,
  () => new Date(0),
  () => new Map(),
  symbolKeyed,
  hiddenSymbol,
  inheriting,
];

const fresh = (value: unknown) =>
  typeof value === 'function' ? (value as () => unknown)() : value;

/** One edit of an event: set a field (own, enumerable) to a value, or remove it. */
const edit = fc.record({
  field: fc.constantFrom(...FIELDS),
  value: fc.integer({ min: 0, max: VALUES.length }),
});

/** Samples the parsers accept some form of: Scheduled Events and on-demand inputs. */
const NEAR_MISSES = SAMPLE_EVENTS.filter((event) => {
  const fields = event as Record<string, unknown>;
  return fields['detail-type'] === 'Scheduled Event' || 'shard' in fields || 'mode' in fields;
});

/** A sample, or a small object, with up to three edits; or a bare edge value. */
export const eventVariant: fc.Arbitrary<unknown> = fc.oneof(
  fc
    .tuple(
      fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom(...NEAR_MISSES) },
        { weight: 1, arbitrary: fc.constantFrom<unknown>(...SAMPLE_EVENTS, {}, { shard: 'o' }) },
      ),
      fc.array(edit, { maxLength: 3 }),
      fc.boolean(),
    )
    .map(([base, edits, inherit]) => {
      // A copy, optionally with the sample as its prototype (inherited fields).
      const copy = inherit ? Object.create(structuredClone(base) as object) : structuredClone(base);
      if (typeof copy !== 'object' || copy === null) return copy;
      for (const { field, value } of edits) {
        if (value === VALUES.length) delete (copy as Record<string, unknown>)[field];
        else {
          Object.defineProperty(copy, field, {
            value: fresh(VALUES[value]),
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
      }
      return copy;
    }),
  fc.constantFrom(...VALUES).map(fresh),
);
