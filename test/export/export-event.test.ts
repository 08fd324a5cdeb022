/**
 * The export function takes exactly two shapes: the Scheduled Event its
 * schedule sends, and `{ "shard" }`. Anything else is refused, naming what
 * it expected: an unrelated event must never mean "export every shard".
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InvalidInputError } from '../../lib/errors.js';
import {
  type ExportRequest,
  parseExportEvent,
  SCHEDULED_EVENT_SOURCES,
} from '../../lib/export/export-event.js';
import { scheduledEvent } from '../../lib/local/scheduled-events.js';
import { assertShardName } from '../../lib/paths.js';
import { eventVariant, SAMPLE_EVENTS } from '../support/event-variants.js';

const sample = (file: string): unknown =>
  JSON.parse(readFileSync(new URL(`../../events/${file}`, import.meta.url), 'utf8'));

const refusal = (event: unknown): InvalidInputError => {
  try {
    parseExportEvent(event);
  } catch (error) {
    if (error instanceof InvalidInputError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(event)} to be refused`);
};

describe('parseExportEvent', () => {
  it('reads the scheduled sample, the local schedule event and an EventBridge rule event as "export all"', () => {
    const rule = { ...(sample('scheduled-export.json') as object), source: 'aws.events' };
    for (const event of [
      sample('scheduled-export.json'),
      scheduledEvent('export', 'id-1', 1_800_000_000_000),
      rule,
    ]) {
      expect(parseExportEvent(event)).toEqual({ kind: 'all' });
    }
  });

  it.each([
    [
      'EventBridge Scheduler with no input (detail is the string "{}")',
      'scheduled-scheduler-default.json',
    ],
    ['an EventBridge rule', 'scheduled-rule.json'],
    ['SAM’s generated sample (no version)', 'scheduled-sam-sample.json'],
  ])('reads the genuine Scheduled Event of %s as "export all"', (_label, file) => {
    expect(parseExportEvent(sample(file))).toEqual({ kind: 'all' });
  });

  it('reads the on-demand sample as one shard', () => {
    expect(parseExportEvent(sample('export-shard.json'))).toEqual({
      kind: 'shard',
      shard: 'orders',
    });
  });

  it.each([
    ['an empty object', {}],
    ['null', null],
    ['a string', 'export'],
    ['an array', [{ shard: 'orders' }]],
    ['an SQS event', sample('sqs-batch.json')],
    ['an API Gateway event', sample('api-put.json')],
    ['the recovery schedule input', sample('scheduled-recovery.json')],
    [
      'the ticker schedule event with a shard',
      { ...(sample('scheduled-tick.json') as object), shard: 'x' },
    ],
    [
      'a Scheduled Event from another source',
      { ...(sample('scheduled-export.json') as object), source: 'aws.s3' },
    ],
    [
      'another detail-type',
      { ...(sample('scheduled-export.json') as object), 'detail-type': 'Object Created' },
    ],
    [
      'a Scheduled Event with no resources',
      { ...(sample('scheduled-export.json') as object), resources: undefined },
    ],
    [
      'a Scheduled Event whose detail is text but not a JSON object',
      { ...(sample('scheduled-scheduler-default.json') as object), detail: '[1]' },
    ],
    [
      'a Scheduled Event with no time',
      { ...(sample('scheduled-sam-sample.json') as object), time: undefined },
    ],
  ])('refuses %s, naming the two shapes it takes', (_label, event) => {
    const error = refusal(event);
    expect(error.message).toContain(
      'expected an EventBridge "Scheduled Event" (exports every due shard) or {"shard": "<name>"} (exports one)',
    );
  });

  it.each([
    ['a shard that is not a string', { shard: 7 }, 'event.shard'],
    ['a shard with other fields', { shard: 'orders', mode: 'all' }, 'event'],
    ['a bad shard name', { shard: '../x' }, 'event.shard'],
  ])('refuses %s, naming the field', (_label, event, field) => {
    expect(refusal(event).field).toBe(field);
  });
});

/**
 * The zod schemas this parser replaced (zod cost the export function 569 KiB
 * of bundle at every cold start). The events each accepted and refused, and
 * the field each refusal named, are the contract the hand-written checks keep.
 */
const zodDetail = z.union([
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
const zodScheduled = z.object({
  version: z.string().optional(),
  id: z.string().optional(),
  'detail-type': z.literal('Scheduled Event'),
  source: z.enum(SCHEDULED_EVENT_SOURCES),
  account: z.string().optional(),
  time: z.string(),
  region: z.string().optional(),
  resources: z.array(z.string()),
  detail: zodDetail,
});
const zodOnDemand = z.strictObject({ shard: z.string() });

function zodParseExportEvent(event: unknown): ExportRequest {
  const isObject = typeof event === 'object' && event !== null && !Array.isArray(event);
  if (isObject && 'shard' in event) {
    const parsed = zodOnDemand.safeParse(event);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const field = issue.path.length > 0 ? `event.${issue.path.join('.')}` : 'event';
      throw new InvalidInputError(field, issue.message);
    }
    assertShardName(parsed.data.shard, 'event.shard');
    return { kind: 'shard', shard: parsed.data.shard };
  }
  if (isObject && zodScheduled.safeParse(event).success) return { kind: 'all' };
  throw new InvalidInputError('event', 'refused');
}

/** What a parser made of `event`: its request, or the field its refusal named. */
function outcome(parse: (event: unknown) => ExportRequest, event: unknown) {
  try {
    return parse(event);
  } catch (error) {
    if (error instanceof InvalidInputError) return { refused: error.field };
    throw error;
  }
}

describe('parseExportEvent against the zod schemas it replaced', () => {
  it('accepts and refuses every sample as they did, naming the same field', () => {
    for (const event of SAMPLE_EVENTS) {
      expect(outcome(parseExportEvent, event)).toEqual(outcome(zodParseExportEvent, event));
    }
  });

  it('accepts and refuses every variant of the samples as they did, naming the same field', () => {
    fc.assert(
      fc.property(eventVariant, (event) => {
        expect(outcome(parseExportEvent, event)).toEqual(outcome(zodParseExportEvent, event));
      }),
      { seed: 2_323, numRuns: 4_000 },
    );
  });
});
