import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InvalidInputError } from '../../lib/errors.js';
import { handleExportEvent } from '../../lib/export/export-event.js';
import { assertShardName } from '../../lib/paths.js';
import {
  handleRecoverEvent,
  parseRecoverEvent,
  RecoverMode,
  type RecoverRequest,
} from '../../lib/recovery/recover-event.js';
import { eventVariant, SAMPLE_EVENTS } from '../support/event-variants.js';
import { fixture, useDynalite } from '../support/harness.js';
import { caught } from '../wal/helpers.js';
import { exportDepsOf, recoveryDepsOf, TestShard } from './support.js';

const dynalite = useDynalite();
const event = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`../../events/${name}`, import.meta.url), 'utf8'));

describe(parseRecoverEvent, () => {
  it('reads the scheduled input and a bare scheduled event as verify-every-shard', () => {
    expect(parseRecoverEvent(event('scheduled-recovery.json'))).toEqual({ mode: 'verify' });
    expect(parseRecoverEvent(event('scheduled-export.json'))).toEqual({ mode: 'verify' });
    for (const genuine of [
      'scheduled-scheduler-default.json',
      'scheduled-rule.json',
      'scheduled-sam-sample.json',
    ]) {
      expect(parseRecoverEvent(event(genuine)), genuine).toEqual({ mode: 'verify' });
    }
  });

  it('reads the on-demand samples', () => {
    expect(parseRecoverEvent(event('recover-rebuild.json'))).toEqual({
      mode: 'rebuild',
      shard: 'orders',
    });
    expect(parseRecoverEvent(event('recover-verify-shard.json'))).toEqual({
      mode: 'verify',
      shard: 'orders',
    });
  });

  for (const [input, field] of [
    [{ mode: 'rebuild' }, 'event.shard'],
    [{ mode: 'repair', shard: 'x' }, 'event.mode'],
    [{ mode: 'verify', shard: 'Not A Shard' }, 'event.shard'],
    [42, 'event'],
  ] as const) {
    it(`rejects ${JSON.stringify(input)} naming ${field}`, async () => {
      const error = await caught(() => parseRecoverEvent(input));
      expect(error).toBeInstanceOf(InvalidInputError);
      expect((error as InvalidInputError).field).toBe(field);
    });
  }
});

/**
 * The zod schema this parser replaced (zod cost the recovery function 569 KiB
 * of bundle at every cold start). The events it accepted and refused, and the
 * field each refusal named, are the contract the hand-written checks keep.
 */
const zodRequest = z.object({
  mode: z.enum([RecoverMode.verify, RecoverMode.rebuild]),
  shard: z.string().optional(),
});

function zodParseRecoverEvent(event: unknown): RecoverRequest {
  const fields =
    typeof event === 'object' && event !== null ? (event as Record<string, unknown>) : undefined;
  if (fields && fields.mode === undefined && fields['detail-type'] === 'Scheduled Event') {
    return { mode: RecoverMode.verify };
  }
  const parsed = zodRequest.safeParse(event);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.length > 0 ? `event.${issue.path.join('.')}` : 'event';
    throw new InvalidInputError(field, issue.message);
  }
  const { mode, shard } = parsed.data;
  if (shard !== undefined) assertShardName(shard, 'event.shard');
  if (mode === RecoverMode.rebuild) {
    if (shard === undefined)
      throw new InvalidInputError('event.shard', 'a rebuild names the shard to rebuild');
    return { mode, shard };
  }
  return shard === undefined ? { mode } : { mode, shard };
}

/** What a parser made of `event`: its request, or the field its refusal named. */
function outcome(parse: (event: unknown) => RecoverRequest, event: unknown) {
  try {
    return parse(event);
  } catch (error) {
    if (error instanceof InvalidInputError) return { refused: error.field };
    throw error;
  }
}

describe('parseRecoverEvent against the zod schema it replaced', () => {
  it('accepts and refuses every sample as it did, naming the same field', () => {
    for (const sample of SAMPLE_EVENTS) {
      expect(outcome(parseRecoverEvent, sample)).toEqual(outcome(zodParseRecoverEvent, sample));
    }
  });

  it('accepts and refuses every variant of the samples as it did, naming the same field', () => {
    fc.assert(
      fc.property(eventVariant, (variant) => {
        expect(outcome(parseRecoverEvent, variant)).toEqual(outcome(zodParseRecoverEvent, variant));
      }),
      { seed: 2_323, numRuns: 4_000 },
    );
  });
});

describe(handleRecoverEvent, () => {
  it('runs what each event asks for', async () => {
    const f = await fixture(dynalite());
    const s = new TestShard(f, 'orders');
    await s.keyed([{ id: 'a', v: 1 }]);
    await s.flush();
    const deps = recoveryDepsOf(f);
    expect(await handleRecoverEvent(deps, event('scheduled-recovery.json'))).toMatchObject({
      kind: 'verify-all',
      shards: 1,
      ok: 1,
    });
    expect(await handleRecoverEvent(deps, event('recover-verify-shard.json'))).toMatchObject({
      kind: 'verify',
      shard: 'orders',
      ok: true,
    });
    expect(await handleRecoverEvent(deps, event('recover-rebuild.json'))).toMatchObject({
      kind: 'rebuild',
      shard: 'orders',
      status: 'rebuilt',
    });
  });
});

describe(handleExportEvent, () => {
  it('exports every due shard on the schedule, one shard on demand', async () => {
    const f = await fixture(dynalite());
    const s = new TestShard(f, 'orders');
    await s.keyed([{ id: 'a', v: 1 }]);
    await s.flush();
    expect(await handleExportEvent(exportDepsOf(f), event('scheduled-export.json'))).toMatchObject({
      kind: 'export-all',
      due: 1,
    });
    await s.keyed([{ id: 'b', v: 1 }]);
    await s.flush();
    expect(await handleExportEvent(exportDepsOf(f), { shard: 'orders' })).toMatchObject({
      kind: 'export',
      status: 'exported',
    });
    expect(
      (await caught(() => handleExportEvent(exportDepsOf(f), { shard: 7 }))).message,
    ).toContain('event.shard');
  });
});
