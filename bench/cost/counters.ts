/**
 * Counter arithmetic of a run: snapshots and differences of the meter's
 * counters, and object store requests and bytes by object kind.
 */

import { StoreOperation } from '../../lib/store/store-operation.js';
import { addCounters, emptyCounters, type MeterCounters } from './billing/meter-ledger.js';
import type { MeteredDynamoDB } from './billing/metered-dynamodb.js';
import type { KindBytes, ObjectKind } from './store-meter.js';

/** The meter's totals for `label` (zeros without a meter). */
export function snapshot(meter: MeteredDynamoDB | undefined, label: string): MeterCounters {
  return meter ? meter.totals({ label }) : emptyCounters();
}

/** `after` − `before`, field by field. */
export function diff(after: MeterCounters, before: MeterCounters): MeterCounters {
  const out = emptyCounters();
  addCounters(out, after);
  for (const key of Object.keys(out) as (keyof MeterCounters)[]) out[key] -= before[key];
  return out;
}

/** A zero count per object store operation. */
function zeroOps(): Record<StoreOperation, number> {
  return Object.fromEntries(Object.values(StoreOperation).map((op) => [op, 0])) as Record<
    StoreOperation,
    number
  >;
}

/** Zero counts per operation, per object kind. */
export function zeroKinds(): Record<ObjectKind, Record<StoreOperation, number>> {
  return { wal: zeroOps(), export: zeroOps(), spill: zeroOps(), other: zeroOps() };
}

/** A copy of per-kind counts. */
export function cloneKinds(
  kinds: Record<ObjectKind, Record<StoreOperation, number>>,
): Record<ObjectKind, Record<StoreOperation, number>> {
  return {
    wal: { ...kinds.wal },
    export: { ...kinds.export },
    spill: { ...kinds.spill },
    other: { ...kinds.other },
  };
}

/** `a` − `b`, per kind and operation. */
export function subtractKinds(
  a: Record<ObjectKind, Record<StoreOperation, number>>,
  b: Record<ObjectKind, Record<StoreOperation, number>>,
): Record<ObjectKind, Record<StoreOperation, number>> {
  const out = cloneKinds(a);
  for (const kind of Object.keys(out) as ObjectKind[]) {
    for (const op of Object.keys(out[kind]) as StoreOperation[]) out[kind][op] -= b[kind][op];
  }
  return out;
}

/** `a` − `b`, per kind and field. */
export function subtractBytes(
  a: Record<ObjectKind, KindBytes>,
  b: Record<ObjectKind, KindBytes>,
): Record<ObjectKind, KindBytes> {
  const out = {
    wal: { ...a.wal },
    export: { ...a.export },
    spill: { ...a.spill },
    other: { ...a.other },
  };
  for (const kind of Object.keys(out) as ObjectKind[]) {
    for (const field of Object.keys(out[kind]) as (keyof KindBytes)[]) {
      out[kind][field] -= b[kind][field];
    }
  }
  return out;
}
