/**
 * `shardwal export` honours the retention settings of its environment as the
 * scheduled export does: `SHARDWAL_EXPORT_RETENTION_MS` retires superseded
 * exports (the newest two stay) and `SHARDWAL_HISTORY_RETENTION_MS` moves the
 * history floor. Against AWS (`--table`, `--bucket`) through emulators; the
 * shard is fed through the real put and flush paths between exports.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateSettings } from '../../lib/config.js';
import { flushSettings, flushShard } from '../../lib/flush/flush-shard.js';
import { manifestPrefix } from '../../lib/manifest/format.js';
import { ensureTable } from '../../lib/memtable/create-table.js';
import { type DynaliteServer, startDynalite } from '../../lib/memtable/dynalite-server.js';
import type { Table } from '../../lib/memtable/table.js';
import type { PutDeps } from '../../lib/put/put-rows.js';
import { putBatch } from '../support/wal-chain.js';
import { cli } from './cli-io.js';
import { type S3Emulator, startS3 } from './s3-emulator.js';

const SHARD = 'history';
const BUCKET = 'shardwal-retention';
const TABLE = 'shardwal';

let root: string;
let dynamo: DynaliteServer;
let s3: S3Emulator;

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'shardwal-export-retention-'));
  dynamo = await startDynalite();
  s3 = await startS3(path.join(root, 's3'));
});

afterAll(async () => {
  await s3?.close();
  await dynamo?.close();
  await rm(root, { recursive: true, force: true });
});

/** Puts one batch of keyless rows and flushes it into its own WAL object. */
async function putAndFlush(
  deps: PutDeps,
  store: Awaited<ReturnType<S3Emulator['bucket']>>,
  n: number,
) {
  await putBatch(deps, SHARD, [{ n }]);
  await flushShard(
    {
      table: deps.table,
      store,
      owner: 'test-flusher',
      ...flushSettings(deps.config),
      now: Date.now,
    },
    SHARD,
  );
}

/** Waits `ms` of wall time: retention compares real clocks. */
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('shardwal export', () => {
  describe('with SHARDWAL_EXPORT_RETENTION_MS and SHARDWAL_HISTORY_RETENTION_MS set', () => {
    it('retires superseded exports after the export retention and moves the history floor', async () => {
      const table: Table = { client: dynamo.client, tableName: TABLE };
      await ensureTable(table);
      const store = await s3.bucket(BUCKET);
      const config = validateSettings({});
      const put: PutDeps = {
        table,
        config,
        requestFlush: async () => {},
        now: Date.now,
        sleep: pause,
      };
      const env = {
        SHARDWAL_DYNAMODB_ENDPOINT: dynamo.endpoint,
        SHARDWAL_S3_ENDPOINT: s3.endpoint,
        // Both far below the WAL retention (7 days by default), which must not stand in for them.
        SHARDWAL_EXPORT_RETENTION_MS: '20',
        SHARDWAL_HISTORY_RETENTION_MS: '20',
        // No clock skew: a superseded export then goes once the export after it is older than
        // A = max(R, 2D + S) = 2 s (D4 in lib/export/deadline.ts; D is at least 1 s).
        SHARDWAL_CLOCK_SKEW_MS: '0',
      };
      const reports: Array<Record<string, unknown>> = [];
      for (let round = 1; round <= 4; round++) {
        await putAndFlush(put, store, round);
        // Before the last export, the exports before it are older than A.
        await pause(round === 4 ? 2_200 : 40);
        const run = await cli(
          ['export', SHARD, '--table', TABLE, '--bucket', BUCKET, '--json'],
          env,
        );
        expect(run.code, run.stdout + run.stderr).toBe(0);
        reports.push(JSON.parse(run.stdout) as Record<string, unknown>);
      }
      const last = reports.at(-1) as {
        historyFloor: number;
        segments: number;
        retention: { kept: number[]; retired: number[] };
      };
      // Export retention: only the newest two exports stay, the others once their successor is
      // older than A (until then an export slower than two later ones may still build on them).
      const manifests: string[] = [];
      for await (const key of store.list(manifestPrefix(SHARD))) manifests.push(key);
      expect(manifests).toHaveLength(2);
      expect(last.retention.kept).toEqual([3, 4]);
      expect(last.retention.retired).toEqual([1, 2]);
      // History retention: the segments of the earlier exports left the manifest.
      expect(last.historyFloor).toBe(3);
      expect(last.segments).toBe(1);
    });
  });
});
