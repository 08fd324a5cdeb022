/**
 * The CLI's `export` and `recover` and the scheduled functions build their
 * dependencies from the same validated configuration through the same
 * builders: every setting that reaches one reaches the other. Compared whole
 * (every field but the clients, the clock and the run's owner), so a setting
 * added to one builder only fails here.
 */
import { describe, expect, it } from 'vitest';
import { jobDeps } from '../../lib/cli/job-deps.js';
import { exportDeps } from '../../lib/export/deps.js';
import type { Table } from '../../lib/memtable/table.js';
import { recoveryDeps } from '../../lib/recovery/deps.js';
import { serviceFromEnv } from '../../lib/runtime/service.js';

/** Every setting export or recovery reads, away from its default. */
const ENV: NodeJS.ProcessEnv = {
  SHARDWAL_TABLE: 'shardwal-test',
  SHARDWAL_BUCKET: 'shardwal-test-bucket',
  AWS_REGION: 'eu-west-1',
  SHARDWAL_WAL_RETENTION_MS: '86400000',
  SHARDWAL_EXPORT_RETENTION_MS: '3600000',
  SHARDWAL_HISTORY_RETENTION_MS: '604800000',
  SHARDWAL_LEASE_MS: '7000',
  SHARDWAL_CLOCK_SKEW_MS: '1500',
  SHARDWAL_PUT_DEADLINE_MS: '4000',
  SHARDWAL_GAP_SEAL_MS: '9000',
  SHARDWAL_RESERVATION_LEASE_MS: '8000',
  SHARDWAL_IDEMPOTENCY_TTL_MS: '7200000',
  SHARDWAL_SPILL_BYTES: '20000',
};

/** A table as the deps see it, without its client. */
function tableSettings(table: Table) {
  return {
    tableName: table.tableName,
    lifetimes: table.lifetimes,
    spillThresholdBytes: table.spill?.thresholdBytes,
  };
}

/** Deps without what differs by process (clients, clock, owner): the settings. */
function settingsOf(deps: object) {
  const {
    table,
    store: _store,
    now: _now,
    owner: _owner,
    ...rest
  } = deps as Record<string, unknown> & { table: Table };
  return { ...rest, table: tableSettings(table) };
}

describe('jobDeps', () => {
  const service = serviceFromEnv(ENV);
  const target: Table = { client: service.table.client, tableName: service.table.tableName };
  const cli = jobDeps(target, service.store(), ENV);

  describe('exportDeps', () => {
    it('equals the export function’s in every setting', () => {
      const lambda = settingsOf(exportDeps(service));
      expect(settingsOf(cli.exportDeps)).toStrictEqual(lambda);
      expect(lambda).toMatchObject({
        exportRetentionMs: 3_600_000,
        historyRetentionMs: 604_800_000,
      });
    });
  });

  describe('recoveryDeps', () => {
    it('equals the recovery function’s in every setting', () => {
      const lambda = settingsOf(recoveryDeps(service, 'any'));
      expect(settingsOf(cli.recoveryDeps)).toStrictEqual(lambda);
      expect(lambda).toMatchObject({ leaseMs: 7_000, clockSkewMs: 1_500, gapSealMs: 9_000 });
    });
  });
});

describe('serviceFromEnv', () => {
  describe('tick', () => {
    it('hands a lapsed rebuild fence to the takeover, built from the same settings', async () => {
      const service = serviceFromEnv(ENV);
      const deps = service.tick('ticker');
      expect(deps.takeOver).toBeTypeOf('function');
      // A fence whose lease is still live is left alone without a request (T1, T6).
      const live = { epoch: 3, owner: 'rebuild', leaseExpiresAtMs: Date.now() + 60_000 };
      await expect(deps.takeOver?.('s1', live)).resolves.toBeUndefined();
    });
  });
});
