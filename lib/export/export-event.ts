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
import { z } from 'zod';
import { InvalidInputError } from '../errors.js';
import { assertShardName } from '../paths.js';
import type { ExportDeps } from './deps.js';
import { type ExportAllReport, exportAll } from './export-all.js';
import type { ExportReport } from './export-report.js';
import { exportShard } from './export-shard.js';

/** Sources of a Scheduled Event: EventBridge Scheduler, or an EventBridge rule. */
export const SCHEDULED_EVENT_SOURCES = ['aws.scheduler', 'aws.events'] as const;

/** A Scheduled Event's `detail`: an object, or (Scheduler's default notification) the JSON text of one. */
const detailSchema = z.union([
  z.record(z.string(), z.unknown()),
  z.string().refine((text) => {
    try {
      const value: unknown = JSON.parse(text);
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    } catch {
      return false;
    }
  }),
]);

/**
 * The fields of a Scheduled Event the export checks: those every genuine
 * form carries; `version`, `id`, `account` and `region` are checked when
 * present (SAM's sample has no `version`). Others, if EventBridge adds any,
 * pass.
 */
const scheduledEventSchema = z.object({
  version: z.string().optional(),
  id: z.string().optional(),
  'detail-type': z.literal('Scheduled Event'),
  source: z.enum(SCHEDULED_EVENT_SOURCES),
  account: z.string().optional(),
  time: z.string(),
  region: z.string().optional(),
  resources: z.array(z.string()),
  detail: detailSchema,
});

const onDemandSchema = z.strictObject({ shard: z.string() });

/** A parsed export request. */
export type ExportRequest = { kind: 'all' } | { kind: 'shard'; shard: string };

const EXPECTED =
  'expected an EventBridge "Scheduled Event" (exports every due shard) or {"shard": "<name>"} (exports one)';

/** What `event` looks like, for the refusal: its JSON, cut short. */
function sketch(event: unknown): string {
  const text = JSON.stringify(event) ?? String(event);
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

/** Parses the function's event; InvalidInputError for anything but the two shapes. */
export function parseExportEvent(event: unknown): ExportRequest {
  const isObject = typeof event === 'object' && event !== null && !Array.isArray(event);
  if (isObject && 'shard' in event) {
    const parsed = onDemandSchema.safeParse(event);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const field = issue.path.length > 0 ? `event.${issue.path.join('.')}` : 'event';
      throw new InvalidInputError(field, `${issue.message}; ${EXPECTED}, got ${sketch(event)}`);
    }
    assertShardName(parsed.data.shard, 'event.shard');
    return { kind: 'shard', shard: parsed.data.shard };
  }
  if (isObject && scheduledEventSchema.safeParse(event).success) return { kind: 'all' };
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
