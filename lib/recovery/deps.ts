/**
 * What verify and rebuild need, built in one place from the validated
 * configuration (`recoveryDepsFrom`), whichever process runs them: the
 * recovery function, the flush ticker's takeover, the CLI.
 */
import { randomUUID } from 'node:crypto';
import type { ShardwalConfig } from '../config.js';
import type { LeaseTimers } from '../fence/lease-keeper.js';
import { voidLifetimeMs } from '../liveness.js';
import type { Table } from '../memtable/table.js';
import type { Service } from '../runtime/service.js';
import type { ObjectStore } from '../store/object-store.js';
import type { TableRoute } from '../table/names.js';
import { findingWindowMsFromEnv } from '../table/refused.js';
import { tablesConfigFromEnv } from '../table/table-config.js';
import type { RebuildFaultHook } from './fault-points.js';

/** Dependencies of verify and rebuild. */
export interface RecoveryDeps {
  table: Table;
  store: ObjectStore;
  now: () => number;
  /** A seq allocated but unwritten this long is a dead put's gap (the flusher's rule). */
  gapSealMs: number;
  /** How long a rebuild's fence lease lasts; the rebuild renews it while it runs (F4). */
  leaseMs: number;
  /** How long a void stays a tombstone (L4 in `lib/liveness.ts`); nothing removes one sooner. */
  voidLifetimeMs: number;
  /** Identifies this run in the fence lease and the poison text (e.g. a request id). */
  owner: string;
  /** A rebuild's lease is taken over only once expired by more than this (L6); default 0. */
  clockSkewMs?: number;
  /** Fault points between the fence and the reset (tests only). */
  faults?: RebuildFaultHook;
  /** Timers of the fence's lease keeper; real ones by default. */
  timers?: LeaseTimers;
  /** With Iceberg tables: their routes, and how far back verify reports appends that refused values. */
  tables?: { routes: TableRoute[]; findingWindowMs: number };
}

/** What a process supplies besides the configuration. */
export interface RecoveryParts {
  table: Table;
  store: ObjectStore;
  now: () => number;
  owner: string;
}

/** Recovery dependencies of `config`: the one place a setting reaches verify and rebuild. */
export function recoveryDepsFrom(config: ShardwalConfig, parts: RecoveryParts): RecoveryDeps {
  return {
    ...parts,
    gapSealMs: config.gapSealMs,
    leaseMs: config.leaseMs,
    voidLifetimeMs: voidLifetimeMs(config),
    clockSkewMs: config.clockSkewMs,
    ...tablesOfEnv(),
  };
}

/** The tables verify checks, from the environment (none when tables are off). */
function tablesOfEnv(): Pick<RecoveryDeps, 'tables'> {
  const tables = tablesConfigFromEnv();
  if (!tables) return {};
  return { tables: { routes: tables.routes, findingWindowMs: findingWindowMsFromEnv() } };
}

/** Recovery dependencies from the service's configuration and clients. */
export function recoveryDeps(
  service: Service,
  owner: string = `recovery-${randomUUID()}`,
): RecoveryDeps {
  return recoveryDepsFrom(service.config, {
    table: service.table,
    store: service.store(),
    now: () => Date.now(),
    owner,
  });
}
