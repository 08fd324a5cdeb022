/**
 * The dependencies of the export and recovery library for a CLI run: the
 * target's table and store, with the service settings read and validated
 * from the CLI's environment exactly as a function reads them, and mapped to
 * dependencies by the same builders the functions use (`exportDepsFrom`,
 * `recoveryDepsFrom`, `configuredTable`): no setting reaches one and not
 * the other.
 */
import { hostname } from 'node:os';
import { configFromEnv, type ShardwalConfig } from '../config.js';
import { type ExportDeps, exportDepsFrom } from '../export/deps.js';
import type { Table } from '../memtable/table.js';
import { type RecoveryDeps, recoveryDepsFrom } from '../recovery/deps.js';
import { configuredTable } from '../runtime/service.js';
import type { ObjectStore } from '../store/object-store.js';

/** Both sets of dependencies over one table and store. */
export interface JobDeps {
  config: ShardwalConfig;
  exportDeps: ExportDeps;
  recoveryDeps: RecoveryDeps;
}

/** Dependencies for a CLI run; the owner names this host and process in leases and poison text. */
export function jobDeps(target: Table, store: ObjectStore, env: NodeJS.ProcessEnv): JobDeps {
  const config = configFromEnv(env);
  const table = configuredTable(target, config, () => store);
  const now = () => Date.now();
  return {
    config,
    exportDeps: exportDepsFrom(config, { table, store, now }),
    recoveryDeps: recoveryDepsFrom(config, {
      table,
      store,
      now,
      owner: `cli-${hostname()}-${process.pid}`,
    }),
  };
}
