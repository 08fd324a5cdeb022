import { gunzipSync } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import { exportShard } from '../../lib/export/export-shard.js';
import { poisonShard } from '../../lib/fence/commit.js';
import { FaultPoint, SimulatedCrash } from '../../lib/flush/fault-points.js';
import { flushShard } from '../../lib/flush/flush-shard.js';
import { itemLifetimes } from '../../lib/liveness.js';
import { manifestKey } from '../../lib/manifest/format.js';
import { allocateSeq } from '../../lib/memtable/allocate.js';
import { listBatchHeads } from '../../lib/memtable/batch-heads.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { RESPILL_AGE_MS } from '../../lib/memtable/spill.js';
import { batchRange, queryShardItems } from '../../lib/memtable/table.js';
import { logger } from '../../lib/observability/telemetry.js';
import { SPILL_PREFIX, walKey } from '../../lib/paths.js';
import { FindingKind, HealKind } from '../../lib/recovery/findings.js';
import { renderVerifyAllReport, renderVerifyReport } from '../../lib/recovery/render.js';
import { verifyShard } from '../../lib/recovery/verify.js';
import { verifyAll } from '../../lib/recovery/verify-all.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';
import { caught } from '../wal/helpers.js';
import { exportDepsOf, overwrite, recoveryDepsOf, TestShard, withVersion } from './support.js';

const dynalite = useDynalite();

async function healthy(f?: Fixture, shard = 's1') {
  const fx = f ?? (await fixture(dynalite()));
  const s = new TestShard(fx, shard);
  await s.keyed([{ id: 'a', v: 1 }]);
  await s.flush();
  await s.keyless([{ n: 1 }]);
  await s.flush();
  await exportShard(exportDepsOf(fx), shard);
  await s.keyed([{ id: 'b', v: 1 }]);
  await s.flush();
  return { f: fx, s };
}

const crashAt = (point: string) => async (at: string) => {
  if (at === point) throw new SimulatedCrash(at as never);
};

describe(verifyShard, () => {
  it('finds nothing on a healthy shard and reports what it checked', async () => {
    const { f } = await healthy();
    const report = await verifyShard(recoveryDepsOf(f), 's1');
    expect(report).toMatchObject({
      ok: true,
      findings: [],
      heals: [],
      exportChecked: { key: manifestKey('s1', 2), coveredPosition: 2, full: true, valid: true },
      walChecked: { fromPosition: 2, toPosition: 3, objects: 1, rows: 1 },
      pendingAppend: null,
    });
    expect(renderVerifyReport(report)).toContain('verify shard s1: OK');
  });

  it('accepts one valid append awaiting its commit beyond walNextPos, which the next flush adopts', async () => {
    const { f, s } = await healthy();
    await s.keyed([{ id: 'c', v: 1 }]);
    await caught(() =>
      flushShard(f.flushDeps('crasher', { faults: crashAt(FaultPoint.afterWalWrite) }), 's1'),
    );
    f.clock.advance(f.config.leaseMs + 1);
    const report = await verifyShard(recoveryDepsOf(f), 's1', { heal: false });
    expect(report).toMatchObject({ ok: true, pendingAppend: 3 });
    expect(await flushShard(f.flushDeps('next'), 's1')).toMatchObject({
      status: 'flushed',
      position: 3,
      adopted: true,
    });
  });

  it('heals an expired lease, and says so', async () => {
    const { f, s } = await healthy();
    await s.keyed([{ id: 'c', v: 1 }]);
    await caught(() =>
      flushShard(f.flushDeps('crasher', { faults: crashAt(FaultPoint.afterClaim) }), 's1'),
    );
    f.clock.advance(f.config.leaseMs + 1);
    const report = await verifyShard(recoveryDepsOf(f), 's1');
    expect(report.ok).toBe(true);
    expect(report.heals).toEqual([
      expect.objectContaining({ kind: HealKind.expiredLeaseCleared, shard: 's1' }),
    ]);
    expect((await readShardRecord(f.table, 's1'))?.leaseOwner).toBeUndefined();
    expect(renderVerifyReport(report)).toContain('healed      expired-lease-cleared');
  });

  it('extends the expiry of pending items near it, even on a poisoned shard, and deletes nothing', async () => {
    const { f, s } = await healthy();
    await s.keyed([{ id: 'c', v: 1 }]);
    await poisonShard(f.table, 's1', 'test: stalled', f.clock.now());
    const { batchMs } = itemLifetimes(f.config);
    const pending = (await readShardRecord(f.table, 's1'))!.nextSeq - 1;
    const expiryOf = async () => {
      const items = [];
      const range = batchRange(pending, pending);
      for await (const item of queryShardItems(f.table, 's1', range, 'test')) {
        items.push(Number(item.expiresAt?.N));
      }
      return items;
    };
    const [written] = await expiryOf();
    expect(written).toBe(Math.ceil((f.clock.now() + batchMs) / 1000));
    // Half a lifetime on, nothing to do yet; past it, the pending item is renewed.
    f.clock.advance(batchMs / 2 - 60_000);
    expect((await verifyShard(recoveryDepsOf(f), 's1')).heals).toEqual([]);
    f.clock.advance(120_000);
    const report = await verifyShard(recoveryDepsOf(f), 's1');
    expect(report.heals).toEqual([
      expect.objectContaining({ kind: HealKind.pendingExpiryExtended, shard: 's1' }),
    ]);
    expect(await expiryOf()).toEqual([Math.ceil((f.clock.now() + batchMs) / 1000)]);
  });

  it("copies a poisoned shard's aged spilled payload to a fresh key, and reports it", async () => {
    const f = await fixture(dynalite(), { spillBytes: 0 });
    const s = new TestShard(f, 's1');
    await s.keyed([{ id: 'c', v: 1 }]);
    await poisonShard(f.table, 's1', 'test: stalled', f.clock.now());
    f.clock.advance(RESPILL_AGE_MS);
    const report = await verifyShard(recoveryDepsOf(f), 's1');
    expect(report.heals).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: HealKind.spilledPayloadCopied, shard: 's1' }),
      ]),
    );
    const keys: string[] = [];
    for await (const key of f.memory.list(SPILL_PREFIX)) keys.push(key);
    expect(keys).toHaveLength(2);
  });

  it('seals a gap older than gapSealMs, leaves a young one, and the flusher then proceeds', async () => {
    const { f, s } = await healthy();
    const allocation = await allocateSeq(f.table, {
      shard: 's1',
      bytes: 10,
      nowMs: f.clock.now(),
      maxBufferedBytes: 1e9,
      retryAfterSeconds: 1,
    });
    await s.keyed([{ id: 'c', v: 1 }]); // written after the gap: bounds the gap's allocation time
    expect((await verifyShard(recoveryDepsOf(f), 's1')).heals).toEqual([]); // young: its put may still write
    f.clock.advance(f.config.gapSealMs + 1);
    const report = await verifyShard(recoveryDepsOf(f), 's1');
    expect(report.heals).toEqual([
      expect.objectContaining({ kind: HealKind.gapSealed, seq: allocation.seq }),
    ]);
    // The flusher finds the void verify wrote and flushes past it without sealing anything itself.
    expect((await s.flush())[0]).toMatchObject({
      status: 'flushed',
      firstSeq: allocation.seq,
      lastSeq: allocation.seq + 1,
      sealed: [],
    });
    // Nothing removes the void head, so a late write of that seq still fails.
    await verifyShard(recoveryDepsOf(f), 's1');
    const kept = await listBatchHeads(f.table, 's1', allocation.seq, allocation.seq + 1);
    expect(kept.map((head) => [head.seq, head.kind])).toEqual([
      [allocation.seq, 'void'],
      [allocation.seq + 1, 'rows'],
    ]);
  });

  it('reports a corrupt and an unknown-version object as findings, each a log line', async () => {
    const { f } = await healthy();
    const error = vi.spyOn(logger, 'error');
    try {
      await overwrite(
        f,
        walKey('s1', 2),
        withVersion((await f.memory.get(walKey('s1', 2)))!, 4, gunzipSync),
      );
      const unknown = await verifyShard(recoveryDepsOf(f), 's1');
      expect(unknown.findings).toEqual([
        expect.objectContaining({
          kind: FindingKind.walUnknownVersion,
          position: 2,
          detail: expect.stringContaining('UnknownFormatVersionError'),
        }),
      ]);
      expect(error).toHaveBeenCalledWith(
        'verify finding',
        expect.objectContaining({ kind: FindingKind.walUnknownVersion, shard: 's1', position: 2 }),
      );
      await overwrite(f, walKey('s1', 2), new Uint8Array([1, 2, 3]));
      const corrupt = await verifyShard(recoveryDepsOf(f), 's1');
      expect(corrupt.findings.map((x) => [x.kind, x.position])).toEqual([
        [FindingKind.walCorrupt, 2],
      ]);
      expect(renderVerifyReport(corrupt)).toContain('FINDING     wal-corrupt @2');
    } finally {
      error.mockRestore();
    }
  });

  it('reports a watermark naming a missing export, and still checks the chain after it', async () => {
    const { f } = await healthy();
    await f.memory.delete(manifestKey('s1', 2));
    const report = await verifyShard(recoveryDepsOf(f), 's1');
    expect(report.findings.map((x) => x.kind)).toEqual([FindingKind.exportMissing]);
    expect(report.walChecked).toMatchObject({ fromPosition: 2, toPosition: 3 });
  });

  it('reports S3 objects of a shard the table does not know, and throws for a shard nobody knows', async () => {
    const { f } = await healthy();
    await f.memory.putIfAbsent(walKey('ghost', 0), (await f.memory.get(walKey('s1', 0)))!);
    const report = await verifyShard(recoveryDepsOf(f), 'ghost');
    expect(report.findings.map((x) => x.kind)).toEqual([FindingKind.recordMissing]);
    expect((await caught(() => verifyShard(recoveryDepsOf(f), 'nobody'))).name).toBe(
      'NotFoundError',
    );
  });
});

describe(verifyAll, () => {
  it('verifies every shard record of the table and summarizes', async () => {
    const { f } = await healthy(undefined, 'a1');
    await healthy(f, 'b2');
    await healthy(f, 'c3');
    await overwrite(f, walKey('b2', 2), new Uint8Array([9]));
    const report = await verifyAll(recoveryDepsOf(f));
    expect(report).toMatchObject({ shards: 3, ok: 2, findings: 1, failed: [], skipped: [] });
    expect(report.reports.map((r) => [r.shard, r.ok])).toEqual([
      ['a1', true],
      ['b2', false],
      ['c3', true],
    ]);
    expect(report.reports[0]?.exportChecked?.full).toBe(false); // the scheduled run reads export headers only
    const text = renderVerifyAllReport(report);
    expect(text).toContain('verify all: 3 shards, 2 OK, 1 finding(s)');
    expect(text).toContain('verify shard b2');
    expect(text).not.toContain('verify shard a1');
  });
});
