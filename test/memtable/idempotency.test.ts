/**
 * The reservation record's own rules (K2, K3 in `lib/memtable/idempotency.ts`):
 * only its owner releases a reservation, and a taker re-points it only once
 * the owner's lease has run out. A put path that never breaks them would hide
 * a record that lets anyone move a key; these drive the record directly.
 */
import { describe, expect, it } from 'vitest';
import {
  createReservation,
  type ReservationInput,
  readIdempotencyRecord,
  releaseReservation,
  takeOverReservation,
} from '../../lib/memtable/idempotency.js';
import { fixture, useDynalite } from '../support/harness.js';

const dynalite = useDynalite();
const SHARD = 'idem';
const KEY = 'k-1';
const LEASE_MS = 6_000;
const TTL_MS = 86_400_000;

function input(owner: string, seq: number): Omit<ReservationInput, 'nowMs'> {
  return {
    shard: SHARD,
    key: KEY,
    owner,
    fingerprint: 'fp',
    seq,
    rows: 1,
    leaseMs: LEASE_MS,
    ttlMs: TTL_MS,
  };
}

async function reserved(owner: string) {
  const f = await fixture(dynalite());
  const nowMs = f.clock.now();
  const created = await createReservation(f.table, { ...input(owner, 7), nowMs });
  expect(created).toBe(true);
  return { f, nowMs };
}

describe('takeOverReservation', () => {
  it('re-points an expired reservation of the named owner at the taker', async () => {
    const { f, nowMs } = await reserved('put-a');
    const late = { ...input('put-b', 9), nowMs: nowMs + LEASE_MS + 1 };
    expect(await takeOverReservation(f.table, 'put-a', late)).toBe(true);
    expect(await readIdempotencyRecord(f.table, SHARD, KEY, late.nowMs)).toMatchObject({
      state: 'pending',
      owner: 'put-b',
      seq: 9,
    });
  });

  it('refuses while the owner lease is live, and the reservation stays as it was', async () => {
    const { f, nowMs } = await reserved('put-a');
    expect(await takeOverReservation(f.table, 'put-a', { ...input('put-b', 9), nowMs })).toBe(
      false,
    );
    expect(await readIdempotencyRecord(f.table, SHARD, KEY, nowMs)).toMatchObject({
      owner: 'put-a',
      seq: 7,
    });
  });

  it('refuses a taker that names another previous owner (a race it lost)', async () => {
    const { f, nowMs } = await reserved('put-a');
    const late = { ...input('put-c', 11), nowMs: nowMs + LEASE_MS + 1 };
    expect(await takeOverReservation(f.table, 'put-b', late)).toBe(false);
    expect(await readIdempotencyRecord(f.table, SHARD, KEY, late.nowMs)).toMatchObject({
      owner: 'put-a',
    });
  });
});

describe('releaseReservation', () => {
  it('releases only its owner reservation', async () => {
    const { f, nowMs } = await reserved('put-a');
    expect(await releaseReservation(f.table, SHARD, KEY, 'put-b')).toBe(false);
    expect(await readIdempotencyRecord(f.table, SHARD, KEY, nowMs)).toMatchObject({
      owner: 'put-a',
    });
    expect(await releaseReservation(f.table, SHARD, KEY, 'put-a')).toBe(true);
    expect(await readIdempotencyRecord(f.table, SHARD, KEY, nowMs)).toBeUndefined();
  });
});
