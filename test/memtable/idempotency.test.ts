/**
 * The reservation record's own rules (K2 in `lib/memtable/idempotency.ts`):
 * only its owner completes or releases a reservation, and a taker only once
 * the owner's lease has run out. A put path that never breaks them would hide
 * a record that lets anyone overwrite an ack; these drive the record directly.
 */
import { describe, expect, it } from 'vitest';
import {
  completeReservation,
  createReservation,
  type PutAck,
  readIdempotencyRecord,
  releaseReservation,
} from '../../lib/memtable/idempotency.js';
import { fixture, useDynalite } from '../support/harness.js';

const dynalite = useDynalite();
const SHARD = 'idem';
const KEY = 'k-1';
const LEASE_MS = 6_000;
const TTL_MS = 86_400_000;

function ackOf(seq: number): PutAck {
  return { shard: SHARD, seq, rows: 1, durable: false };
}

async function reserved(owner: string) {
  const f = await fixture(dynalite());
  const nowMs = f.clock.now();
  const created = await createReservation(f.table, {
    shard: SHARD,
    key: KEY,
    owner,
    fingerprint: 'fp',
    seq: 7,
    rows: 1,
    nowMs,
    leaseMs: LEASE_MS,
    ttlMs: TTL_MS,
  });
  expect(created).toBe(true);
  return { f, nowMs };
}

describe('completeReservation', () => {
  it('records the ack of the owner', async () => {
    const { f, nowMs } = await reserved('put-a');
    expect(
      await completeReservation(f.table, KEY, ackOf(7), { owner: 'put-a' }, nowMs, TTL_MS),
    ).toBe(true);
    expect(await readIdempotencyRecord(f.table, SHARD, KEY, nowMs)).toMatchObject({
      state: 'done',
      ack: ackOf(7),
    });
  });

  it('refuses another owner, and the reservation stays as it was', async () => {
    const { f, nowMs } = await reserved('put-a');
    expect(
      await completeReservation(f.table, KEY, ackOf(9), { owner: 'put-b' }, nowMs, TTL_MS),
    ).toBe(false);
    expect(await readIdempotencyRecord(f.table, SHARD, KEY, nowMs)).toMatchObject({
      state: 'pending',
      owner: 'put-a',
      seq: 7,
    });
  });

  it('never overwrites an ack already recorded', async () => {
    const { f, nowMs } = await reserved('put-a');
    await completeReservation(f.table, KEY, ackOf(7), { owner: 'put-a' }, nowMs, TTL_MS);
    expect(
      await completeReservation(f.table, KEY, ackOf(9), { owner: 'put-a' }, nowMs, TTL_MS),
    ).toBe(false);
    expect(await readIdempotencyRecord(f.table, SHARD, KEY, nowMs)).toMatchObject({
      ack: ackOf(7),
    });
  });

  it('lets a taker complete only once the owner lease has run out', async () => {
    const { f, nowMs } = await reserved('put-a');
    const early = { takeOverFrom: 'put-a', nowMs: nowMs + LEASE_MS - 1 };
    expect(await completeReservation(f.table, KEY, ackOf(9), early, nowMs, TTL_MS)).toBe(false);
    const late = { takeOverFrom: 'put-a', nowMs: nowMs + LEASE_MS + 1 };
    expect(await completeReservation(f.table, KEY, ackOf(9), late, nowMs, TTL_MS)).toBe(true);
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
