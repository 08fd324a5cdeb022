/**
 * The export function's input and dispatch. Exactly two shapes are taken:
 *
 *   scheduled:  an EventBridge "Scheduled Event" (`detail-type` "Scheduled
 *               Event", `source` aws.scheduler or aws.events, with its
 *               `time` and `resources`) → export every due shard. Every
 *               genuine form is read: what the export schedule sends
 *               (`infra/constructs/schedules.ts`, `exportInput`); what
 *               EventBridge Scheduler sends a schedule with no input (its
 *               default notification, whose `detail` is the string "{}");
 *               an EventBridge rule's event; SAM's `sam local
 *               generate-event cloudwatch scheduled-event` sample (no
 *               `version`). Samples of each are in `events/`.
 *   on demand:  `{ "shard": "<name>" }` and nothing else → export that shard.
 *
 * Anything else — `{}`, another service's event, a misspelt field — is an
 * InvalidInputError naming what was expected: exporting every shard is not a
 * fallback for an event nobody meant for this function.
 */
import { InvalidInputError } from '../errors.js';
import { assertShardName } from '../paths.js';
import type { ExportDeps } from './deps.js';
import { type ExportAllReport, exportAll } from './export-all.js';
import type { ExportReport } from './export-report.js';
import { exportShard } from './export-shard.js';

/** Sources of a Scheduled Event: EventBridge Scheduler, or an EventBridge rule. */
export const SCHEDULED_EVENT_SOURCES = ['aws.scheduler', 'aws.events'] as const;

/** An object, not an array and not null. */
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A plain object (made by `{}`, `JSON.parse` or `Object.create(null)`, not by
 * a class) whose own enumerable keys are all strings.
 */
function isRecord(value: unknown): boolean {
  if (!isObject(value)) return false;
  const made = value.constructor;
  if (typeof made === 'function') {
    const proto: unknown = made.prototype;
    if (!isObject(proto) || !Object.hasOwn(proto, 'isPrototypeOf')) return false;
  }
  return Object.getOwnPropertySymbols(value).every(
    (key) => !Object.prototype.propertyIsEnumerable.call(value, key),
  );
}

/** A Scheduled Event's `detail`: an object, or (Scheduler's default notification) the JSON text of one. */
function isDetail(value: unknown): boolean {
  if (typeof value !== 'string') return isRecord(value);
  try {
    return isObject(JSON.parse(value));
  } catch {
    return false;
  }
}

const isString = (value: unknown): value is string => typeof value === 'string';
const isOptionalString = (value: unknown) => value === undefined || isString(value);

/** An array of strings, every index (a hole is not a string). */
function isStringArray(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) if (!isString(value[i])) return false;
  return true;
}

/**
 * The fields of a Scheduled Event the export checks: those every genuine
 * form carries; `version`, `id`, `account` and `region` are checked when
 * present (SAM's sample has no `version`). Others, if EventBridge adds any,
 * pass.
 */
function isScheduledEvent(event: Record<string, unknown>): boolean {
  return (
    isOptionalString(event.version) &&
    isOptionalString(event.id) &&
    event['detail-type'] === 'Scheduled Event' &&
    (SCHEDULED_EVENT_SOURCES as readonly unknown[]).includes(event.source) &&
    isOptionalString(event.account) &&
    isString(event.time) &&
    isOptionalString(event.region) &&
    isStringArray(event.resources) &&
    isDetail(event.detail)
  );
}

/** A parsed export request. */
export type ExportRequest = { kind: 'all' } | { kind: 'shard'; shard: string };

const EXPECTED =
  'expected an EventBridge "Scheduled Event" (exports every due shard) or {"shard": "<name>"} (exports one)';

/** What `event` looks like, for the refusal: its JSON, cut short. */
function sketch(event: unknown): string {
  const text = JSON.stringify(event) ?? String(event);
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

/** Names of `event`'s enumerable keys other than `shard`, own or inherited. */
function otherKeys(event: object): string[] {
  const keys: string[] = [];
  for (const key in event) if (key !== 'shard') keys.push(key);
  return keys;
}

/** Parses the function's event; InvalidInputError for anything but the two shapes. */
export function parseExportEvent(event: unknown): ExportRequest {
  if (isObject(event) && 'shard' in event) {
    const { shard } = event;
    if (!isString(shard)) {
      const got = shard === null ? 'null' : Array.isArray(shard) ? 'array' : typeof shard;
      throw new InvalidInputError(
        'event.shard',
        `expected a string, got ${got}; ${EXPECTED}, got ${sketch(event)}`,
      );
    }
    const others = otherKeys(event);
    if (others.length > 0) {
      throw new InvalidInputError(
        'event',
        `unexpected field ${others.map((key) => JSON.stringify(key)).join(', ')} beside "shard"; ${EXPECTED}, got ${sketch(event)}`,
      );
    }
    assertShardName(shard, 'event.shard');
    return { kind: 'shard', shard };
  }
  if (isObject(event) && isScheduledEvent(event)) return { kind: 'all' };
  throw new InvalidInputError('event', `${EXPECTED}, got ${sketch(event)}`);
}

/** Runs what the event asks for; resolves to its report. */
export async function handleExportEvent(
  deps: ExportDeps,
  event: unknown,
  options: { shouldStop?: () => boolean } = {},
): Promise<ExportReport | ExportAllReport> {
  const request = parseExportEvent(event);
  if (request.kind === 'shard') return exportShard(deps, request.shard);
  return exportAll(deps, { shouldStop: options.shouldStop });
}
