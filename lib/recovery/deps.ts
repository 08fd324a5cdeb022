/**
 * What verify and rebuild need, and how a handler builds it from the service.
 */
import { randomUUID } from 'node:crypto';
import { voidLifetimeMs } from '../liveness.js';
import type { Table } from '../memtable/table.js';
import type { Service } from '../runtime/service.js';
import type { ObjectStore } from '../store/object-store.js';

/** Dependencies of verify and rebuild. */
export interface RecoveryDeps {
  table: Table;
  store: ObjectStore;
  now: () => number;
  /** A seq allocated but unwritten this long is a dead put's gap (the flusher's rule). */
  gapSealMs: number;
  /** How long a rebuild's fence lease lasts (it is released when the rebuild ends). */
  leaseMs: number;
  /** How long a void stays a tombstone (L4 in `lib/liveness.ts`); nothing removes one sooner. */
  voidLifetimeMs: number;
  /** Identifies this run in the fence lease and the poison text (e.g. a request id). */
  owner: string;
}

/** Recovery dependencies from the service's configuration and clients. */
export function recoveryDeps(
  service: Service,
  owner: string = `recovery-${randomUUID()}`,
): RecoveryDeps {
  return {
    table: service.table,
    store: service.store(),
    now: () => Date.now(),
    gapSealMs: service.config.gapSealMs,
    leaseMs: service.config.leaseMs,
    voidLifetimeMs: voidLifetimeMs(service.config),
    owner,
  };
}
