import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { allocateSeq } from '../../lib/memtable/allocate.js';
import { ensureTable } from '../../lib/memtable/create-table.js';
import { startDynalite } from '../../lib/memtable/dynalite-server.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';

describe('startDynalite', () => {
  it('keeps what was written in its folder across a close and a restart', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'shardwal-dynalite-'));
    try {
      const first = await startDynalite({ path: dir });
      const table = { client: first.client, tableName: 'persisted' };
      await ensureTable(table);
      await allocateSeq(table, {
        shard: 's1',
        bytes: 10,
        nowMs: 1,
        maxBufferedBytes: 1_000,
        retryAfterSeconds: 1,
      });
      await first.close();

      const second = await startDynalite({ path: dir });
      const again = { client: second.client, tableName: 'persisted' };
      expect(await readShardRecord(again, 's1')).toMatchObject({ nextSeq: 2, bufferedBytes: 10 });
      await second.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('fails loudly, naming the cause, when its port is taken', async () => {
    const first = await startDynalite();
    const port = Number(new URL(first.endpoint).port);
    try {
      await expect(startDynalite({ port })).rejects.toThrow(
        /dynalite could not listen: .*EADDRINUSE/,
      );
    } finally {
      await first.close();
    }
  });
});
