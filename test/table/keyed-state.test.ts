/**
 * A keyed shard's table is its change log; the SQL in docs/tables.md gives
 * the current state (newest row per key, deletes dropped) in DuckDB, equal to
 * what folding the WAL gives.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../lib/seeded-random.js';
import { FsObjectStore } from '../../lib/store/fs-store.js';
import { appendTable } from '../../lib/table/append.js';
import { compactTable } from '../../lib/table/compact.js';
import { currentDataFiles } from '../../lib/table/table-status.js';
import { type TestRow, testConfig, testDeps, WalWriter } from './helpers.js';

const CURRENT_STATE_SQL = (source: string) => `
SELECT key, "row"
FROM (
  SELECT key, op, "row",
         row_number() OVER (PARTITION BY shard, key ORDER BY "offset" DESC) AS newest
  FROM ${source}
  WHERE op IN ('upsert', 'delete')
)
WHERE newest = 1 AND op <> 'delete'
ORDER BY key`;

describe('the current-state SQL of docs/tables.md', () => {
  it('gives, in DuckDB, the newest row of every live key, across commits and a compaction', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'shardwal-keyed-'));
    try {
      const store = new FsObjectStore(root);
      const deps = testDeps(store, testConfig('*=orders'));
      deps.locationBase = `file://${root}`;
      const wal = new WalWriter(store, 'orders');
      const random = seededRandom(5);
      const model = new Map<string, string>();
      for (let commit = 0; commit < 4; commit++) {
        for (let object = 0; object < 3; object++) {
          const rows: TestRow[] = [];
          for (let i = 0; i < 5; i++) {
            const key = `"k${Math.floor(random() * 8)}"`;
            if (random() < 0.3) {
              rows.push({ key, delete: true });
              model.delete(key);
            } else {
              const text = `{"v":${commit * 100 + object * 10 + i}}`;
              rows.push({ key, text });
              model.set(key, text);
            }
          }
          rows.push({ text: '{"keyless":true}' });
          await wal.append(rows, Date.UTC(2026, 11, 1, commit));
        }
        expect((await appendTable(deps, 'orders', ['orders'])).status).toBe('committed');
        deps.clock.ms += 60_000;
      }
      expect((await compactTable(deps, 'orders')).status).toBe('compacted');
      const files = (await currentDataFiles(deps, 'orders')).map((f) => `'${fileURLToPath(f)}'`);
      const db = await DuckDBInstance.create(':memory:');
      const connection = await db.connect();
      const rows = (
        await connection.runAndReadAll(CURRENT_STATE_SQL(`read_parquet([${files.join(',')}])`))
      ).getRowObjectsJS();
      connection.closeSync();
      expect(rows.map((r) => [r.key, r.row])).toEqual(
        [...model.entries()].sort(([a], [b]) => (a < b ? -1 : 1)),
      );
      expect(model.size).toBeGreaterThan(2);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
