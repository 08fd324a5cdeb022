import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startLocalStack } from '../../infra/local/local-stack.js';
import { claimFlush } from '../../lib/fence/claim.js';
import { poisonShard } from '../../lib/fence/commit.js';
import { LOCAL_TICKER_OWNER_PREFIX, sealDeadGaps } from '../../lib/local/dead-gaps.js';
import { openLocalTable } from '../../lib/local/local-table.js';
import { allocateSeq } from '../../lib/memtable/allocate.js';
import { listBatchHeads } from '../../lib/memtable/batch-heads.js';
import type { Table } from '../../lib/memtable/table.js';
import { useEnv } from '../cli/cli-io.js';
import { freshTable, useDynalite } from '../support/harness.js';
import { testStackSettings } from '../support/local-stack.js';
import { postJson } from './http-client.js';

const dynalite = useDynalite();
const NOW = 1_800_000_000_000;

/** Allocates `count` seqs of `shard` and writes none: the gaps a killed run leaves. */
async function allocateGaps(table: Table, shard: string, count: number, nowMs = NOW) {
  for (let i = 0; i < count; i++) {
    await allocateSeq(table, {
      shard,
      bytes: 10,
      nowMs,
      maxBufferedBytes: 1_000_000,
      retryAfterSeconds: 1,
    });
  }
}

const voids = async (table: Table, shard: string) =>
  (await listBatchHeads(table, shard)).filter((h) => h.kind === 'void').map((h) => h.seq);

describe('sealDeadGaps', () => {
  it('seals every allocated, unwritten seq above durableSeq of each pending shard', async () => {
    const table = await freshTable(dynalite());
    await allocateGaps(table, 'a', 3);
    await allocateGaps(table, 'b', 1);
    expect(await sealDeadGaps(table, NOW + 1)).toEqual([
      { shard: 'a', seqs: [1, 2, 3] },
      { shard: 'b', seqs: [1] },
    ]);
    expect(await voids(table, 'a')).toEqual([1, 2, 3]);
    expect(await sealDeadGaps(table, NOW + 2)).toEqual([]);
  });

  it('leaves a poisoned shard, and one leased by anyone but a local ticker, to the flusher', async () => {
    const table = await freshTable(dynalite());
    await allocateGaps(table, 'poisoned', 1);
    await poisonShard(table, 'poisoned', 'test', NOW);
    await allocateGaps(table, 'rebuilding', 1);
    await claimFlush(table, 'rebuilding', 'recover-cli', NOW, 60_000);
    await allocateGaps(table, 'ticked', 1);
    await claimFlush(table, 'ticked', `${LOCAL_TICKER_OWNER_PREFIX}1-1`, NOW, 60_000);
    expect(await sealDeadGaps(table, NOW + 1)).toEqual([{ shard: 'ticked', seqs: [1] }]);
    expect(await voids(table, 'poisoned')).toEqual([]);
    expect(await voids(table, 'rebuilding')).toEqual([]);
  });
});

describe('the local stack after a run that left gaps', () => {
  const durableWait = useEnv('SHARDWAL_DURABLE_WAIT_MS', '3000');
  let dataDir: string | undefined;
  afterAll(async () => {
    durableWait.restore();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('flushes past them at its first ticks, without waiting out the 6 s gap seal', async () => {
    durableWait.set();
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'shardwal-gaps-'));
    const settings = testStackSettings(dataDir, { flushIntervalMs: 100 });
    let stack = await startLocalStack(settings);
    const first = await postJson(`${stack.info.httpUrl}/v1/shards/g/rows?durability=durable`, {
      rows: [{ n: 1 }],
    });
    expect(first.body).toMatchObject({ seq: 1, durable: true });
    await stack.stop();
    // What a put killed between its allocation and its write leaves: seqs 2 and 3.
    const local = await openLocalTable(dataDir);
    await allocateGaps(local.table, 'g', 2, Date.now());
    await local.close();

    stack = await startLocalStack(settings);
    try {
      const started = Date.now();
      const next = await postJson(`${stack.info.httpUrl}/v1/shards/g/rows?durability=durable`, {
        rows: [{ n: 4 }],
      });
      // Without the start-up seal seq 4 waits behind the gaps until 6 s after its own write.
      expect(next.status).toBe(200);
      expect(next.body).toMatchObject({ seq: 4, durable: true });
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      await stack.stop();
    }
  });
});
