import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../lib/errors.js';
import { handleExportEvent } from '../../lib/export/export-event.js';
import { handleRecoverEvent, parseRecoverEvent } from '../../lib/recovery/recover-event.js';
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
