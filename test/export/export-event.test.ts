/**
 * The export function takes exactly two shapes: the Scheduled Event its
 * schedule sends, and `{ "shard" }`. Anything else is refused, naming what
 * it expected: an unrelated event must never mean "export every shard".
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../lib/errors.js';
import { parseExportEvent } from '../../lib/export/export-event.js';
import { scheduledEvent } from '../../lib/local/scheduled-events.js';

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
