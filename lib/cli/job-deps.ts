/**
 * The dependencies of the export and recovery library for a CLI run: the
 * target's table and store, with the service settings (`SHARDWAL_LEASE_MS`,
 * `SHARDWAL_GAP_SEAL_MS`, `SHARDWAL_WAL_RETENTION_MS`, …) read and validated
 * from the CLI's environment exactly as a function reads them.
 */
import { hostname } from 'node:os';
import { configFromEnv, type ShardwalConfig } from '../config.js';
import type { ExportDeps } from '../export/deps.js';
import { itemLifetimes, voidLifetimeMs } from '../liveness.js';
import { payloadSpill } from '../memtable/spill.js';
import type { Table } from '../memtable/table.js';
import type { RecoveryDeps } from '../recovery/deps.js';
import type { ObjectStore } from '../store/object-store.js';
import { FRAME_GZIP_LEVEL } from '../wal/framing.js';

/** Both sets of dependencies over one table and store. */
export interface JobDeps {
  config: ShardwalConfig;
  exportDeps: ExportDeps;
  recoveryDeps: RecoveryDeps;
}

/** Dependencies for a CLI run; the owner names this host and process in leases and poison text. */
export function jobDeps(target: Table, store: ObjectStore, env: NodeJS.ProcessEnv): JobDeps {
  const config = configFromEnv(env);
  const table: Table = {
    ...target,
    lifetimes: itemLifetimes(config),
    spill: payloadSpill(config, () => store),
  };
  const now = () => Date.now();
  return {
    config,
    exportDeps: {
      table,
      store,
      now,
      walRetentionMs: config.walRetentionMs,
      gzipLevel: FRAME_GZIP_LEVEL,
    },
    recoveryDeps: {
      table,
      store,
      now,
      gapSealMs: config.gapSealMs,
      leaseMs: config.leaseMs,
      voidLifetimeMs: voidLifetimeMs(config),
      owner: `cli-${hostname()}-${process.pid}`,
    },
  };
}
