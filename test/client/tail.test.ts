/**
 * `tailShard` reading history: the WAL alone, an export's segments below
 * the watermark then the WAL, seeks by seq (inside a segment, at its
 * boundaries, in the WAL tail), the history floor, and a start past the end.
 * Shards are driven through the real put, flush and export paths.
 */
import { describe, expect, it } from 'vitest';
import { tailShard } from '../../lib/client/reader/index.js';
import { HistoryFloorError, InvalidInputError } from '../../lib/errors.js';
import { exportShard } from '../../lib/export/export-shard.js';
import { manifestPrefix } from '../../lib/manifest/format.js';
import { walPrefix } from '../../lib/paths.js';
import { segmentPrefix } from '../../lib/segment/format.js';
import { appendTable } from '../../lib/table/append.js';
import { tableHold } from '../../lib/table/floor.js';
import { manifestAt } from '../export/helpers.js';
import { exportDepsOf } from '../recovery/support.js';
import { fixture, useDynalite } from '../support/harness.js';
import { testConfig, testDeps } from '../table/helpers.js';
import { collect, keylessRows, noticeLog, RecordingStore, TailHistory } from './tail-support.js';

const dynalite = useDynalite();

async function shard(settings: Parameters<typeof fixture>[1] = {}): Promise<TailHistory> {
  return new TailHistory(await fixture(dynalite(), settings));
}

/** `rounds` rounds of: 3 keyless rows, a keyed upsert, one WAL object each, then an export. */
async function exportedRounds(h: TailHistory, rounds: number): Promise<number> {
  let watermark = 0;
  for (let round = 0; round < rounds; round++) {
    await h.put(keylessRows(round * 3, round * 3 + 3));
    await h.flush();
    await h.put([{ id: `k${round % 2}`, round }], 'id');
    await h.flush();
    const report = await h.export();
    expect(report.status).toBe('exported');
    watermark = report.coveredPosition!;
  }
  return watermark;
}

describe('tailShard', () => {
  describe('reading without an export', () => {
    it('yields every row of the WAL in order, keyed, keyless and deletes, exactly as put', async () => {
      const h = await shard();
      await h.put(['{"a":1,"big":12345678901234567890}', { b: '2' }]);
      await h.put([{ id: 'x', v: 1.5 }], 'id');
      await h.flush();
      await h.put([{ id: 'x', $delete: true }], 'id');
      await h.put([{ c: 3 }]);
      await h.flush();
      const rows = await collect(tailShard(h.f.memory, 's1'));
      expect(rows).toEqual(h.rows);
      expect(rows[0]!.text).toBe('{"a":1,"big":12345678901234567890}');
      expect(rows.map((r) => r.offset)).toEqual([0, 1, 2, 3, 4]);
      expect(rows[3]).toMatchObject({ key: '"x"', delete: true });
    });

    it('yields nothing and returns for a shard with no objects', async () => {
      const h = await shard();
      expect(await collect(tailShard(h.f.memory, 'nothing'))).toEqual([]);
    });

    it('refuses a bad shard name and bad options, naming them', async () => {
      const h = await shard();
      await expect(collect(tailShard(h.f.memory, 'Bad/Name'))).rejects.toThrow(InvalidInputError);
      await expect(collect(tailShard(h.f.memory, 's1', { fromSeq: 0 }))).rejects.toThrow(
        /fromSeq: expected a positive integer, got 0/,
      );
      await expect(
        collect(tailShard(h.f.memory, 's1', { pollMs: 500, maxPollMs: 100 })),
      ).rejects.toThrow(/maxPollMs: expected at least pollMs \(500\), got 100/);
    });
  });

  describe('reading across the watermark', () => {
    it('reads keyless rows from the segments below it, every row from the WAL above it', async () => {
      const h = await shard();
      const watermark = await exportedRounds(h, 3);
      await h.put([{ id: 'k0', late: true }], 'id');
      await h.put(keylessRows(100, 102));
      await h.flush();
      const store = new RecordingStore(h.f.memory);
      const log = noticeLog();
      const rows = await collect(tailShard(store, 's1', { onNotice: log.onNotice }));
      expect(rows).toEqual(h.expected(1, watermark));
      // Below the watermark: keyless only; above: the keyed change too.
      expect(rows.filter((r) => r.key !== undefined)).toEqual([
        expect.objectContaining({ key: '"k0"', text: '{"id":"k0","late":true}' }),
      ]);
      expect(log.notices.map((n) => n.kind)).toEqual(['keyed-history', 'start']);
      expect(log.notices[0]!.message).toContain(`below WAL position ${watermark}`);
      // Nothing below the watermark is read from the WAL.
      const walGets = store.requests.filter((r) => r.op === 'get' && r.key.includes('/wal/'));
      expect(walGets.map((r) => Number(r.key.slice(-20)))).toEqual([watermark, watermark + 1]);
    });

    it('says nothing of keyed history for a shard that never had keyed rows', async () => {
      const h = await shard();
      for (let round = 0; round < 2; round++) {
        await h.put(keylessRows(round * 3, round * 3 + 3));
        await h.flush();
        expect((await h.export()).status).toBe('exported');
      }
      await h.put(keylessRows(10, 12));
      await h.flush();
      const log = noticeLog();
      const rows = await collect(tailShard(h.f.memory, 's1', { onNotice: log.onNotice }));
      expect(rows).toEqual(h.rows);
      expect(log.notices.map((n) => n.kind)).not.toContain('keyed-history');
    });

    it('starts inside a segment at the first row of fromSeq, reading no earlier segment', async () => {
      const h = await shard();
      const watermark = await exportedRounds(h, 5);
      const manifest = await manifestAt(h.f.memory, watermark);
      expect(manifest.segments).toHaveLength(5);
      // The third round's keyless batch is seq 5; its rows are in the third segment.
      const fromSeq = h.rows.find((r) => r.text === '{"n":7}')!.seq;
      const store = new RecordingStore(h.f.memory);
      const rows = await collect(tailShard(store, 's1', { fromSeq }));
      expect(rows).toEqual(h.expected(fromSeq, watermark));
      expect(rows[0]!.text).toBe('{"n":6}');
      // Whole reads (getStream after the probes) only of the third segment and later.
      const segmentReads = store.requests.filter(
        (r) => r.op === 'getStream' && r.key.includes('/seg/'),
      );
      expect(new Set(segmentReads.map((r) => r.key)).size).toBeLessThanOrEqual(4);
      expect(segmentReads.at(-3)!.key).toContain(
        String(manifest.segments[2]!.first).padStart(20, '0'),
      );
    });

    it('starts exactly at a segment boundary and exactly at the watermark', async () => {
      const h = await shard();
      const watermark = await exportedRounds(h, 4);
      await h.put(keylessRows(50, 53));
      await h.flush();
      const manifest = await manifestAt(h.f.memory, watermark);
      const firstOfFourth = h.rows.find((r) => r.offset === manifest.segments[3]!.firstOffset)!;
      const atSegment = await collect(tailShard(h.f.memory, 's1', { fromSeq: firstOfFourth.seq }));
      expect(atSegment).toEqual(h.expected(firstOfFourth.seq, watermark));
      expect(atSegment[0]).toEqual(firstOfFourth);
      const afterExport = manifest.header.lastSeq + 1;
      const atWatermark = await collect(tailShard(h.f.memory, 's1', { fromSeq: afterExport }));
      expect(atWatermark).toEqual(h.rows.filter((r) => r.seq >= afterExport));
      expect(atWatermark.map((r) => r.text)).toEqual(['{"n":50}', '{"n":51}', '{"n":52}']);
      // The last seq the export covers comes from its last segment, and the WAL after it.
      const lastCovered = manifest.header.lastSeq;
      const straddling = await collect(tailShard(h.f.memory, 's1', { fromSeq: lastCovered }));
      expect(straddling).toEqual(h.expected(lastCovered, watermark));
    });

    it("yields the keyless rows of the export's last seq when started at that seq", async () => {
      const h = await shard();
      await h.put([{ id: 'k', v: 1 }], 'id');
      await h.flush();
      await h.put(keylessRows(0, 3)); // one seq, the last the export covers
      await h.flush();
      const report = await h.export();
      const manifest = await manifestAt(h.f.memory, report.coveredPosition!);
      await h.put(keylessRows(3, 4));
      await h.flush();
      const boundary = manifest.header.lastSeq;
      const rows = await collect(tailShard(h.f.memory, 's1', { fromSeq: boundary }));
      expect(rows).toEqual(h.expected(boundary, report.coveredPosition!));
      expect(rows.map((r) => r.seq)).toEqual([boundary, boundary, boundary, boundary + 1]);
    });

    it('seeks into the WAL above the watermark with one listing and a binary search', async () => {
      const h = await shard();
      const watermark = await exportedRounds(h, 1);
      for (let i = 0; i < 16; i++) {
        await h.put(keylessRows(1000 + i * 2, 1002 + i * 2));
        await h.flush();
      }
      const fromSeq = h.rows.find((r) => r.text === '{"n":1021}')!.seq;
      const store = new RecordingStore(h.f.memory);
      const rows = await collect(tailShard(store, 's1', { fromSeq }));
      expect(rows).toEqual(h.rows.filter((r) => r.seq >= fromSeq));
      expect(rows[0]!.text).toBe('{"n":1020}');
      expect(store.count('list', walPrefix('s1'))).toBe(2); // the seek's listing, the end's check
      expect(store.count('list', manifestPrefix('s1'))).toBe(1);
      expect(store.count('getStream', segmentPrefix('s1'))).toBe(0);
      // log2(16) probes, then the objects from the one holding fromSeq to the end, and the miss.
      const probes =
        store.count('get', walPrefix('s1')) - (watermark + 16 - h.positionOf(fromSeq)) - 1;
      expect(probes).toBeLessThanOrEqual(5);
    });

    it('returns nothing when fromSeq is past the durable end', async () => {
      const h = await shard();
      await exportedRounds(h, 1);
      await h.put(keylessRows(0, 2));
      await h.flush();
      expect(await collect(tailShard(h.f.memory, 's1', { fromSeq: 99 }))).toEqual([]);
    });
  });

  describe('the history floor', () => {
    /** Five exported rounds, the first three past a 60 s history retention. */
    async function retained(): Promise<{ h: TailHistory; watermark: number }> {
      const h = await shard({ historyRetentionMs: 60_000 });
      await exportedRounds(h, 3);
      h.f.clock.advance(120_000);
      const watermark = await exportedRounds(h, 2);
      const manifest = await manifestAt(h.f.memory, watermark);
      expect(manifest.header.historyFloor).toBeGreaterThan(0);
      return { h, watermark };
    }

    it('refuses a fromSeq below it with an error naming the floor and the oldest kept seq', async () => {
      const { h, watermark } = await retained();
      const manifest = await manifestAt(h.f.memory, watermark);
      const oldestKept = h.rows.find((r) => r.offset === manifest.segments[0]!.firstOffset)!.seq;
      const error = await collect(tailShard(h.f.memory, 's1', { fromSeq: 1 })).catch((e) => e);
      expect(error).toBeInstanceOf(HistoryFloorError);
      expect(error).toMatchObject({
        floorPosition: manifest.header.historyFloor,
        floorSeq: oldestKept,
        fromSeq: 1,
      });
      expect(error.message).toBe(
        `shard s1: seq 1 is below the history floor: keyless rows of WAL positions below ${manifest.header.historyFloor} are no longer kept (history retention); the oldest kept seq is ${oldestKept}`,
      );
      const fromFloor = await collect(tailShard(h.f.memory, 's1', { fromSeq: oldestKept }));
      expect(fromFloor).toEqual(h.expected(oldestKept, watermark));
    });

    it('starts at the oldest kept row without fromSeq, and says so', async () => {
      const { h, watermark } = await retained();
      const log = noticeLog();
      const rows = await collect(tailShard(h.f.memory, 's1', { onNotice: log.onNotice }));
      const manifest = await manifestAt(h.f.memory, watermark);
      const oldestKept = h.rows.find((r) => r.offset === manifest.segments[0]!.firstOffset)!.seq;
      expect(rows).toEqual(h.expected(oldestKept, watermark));
      expect(log.notices.find((n) => n.kind === 'history-floor')?.message).toBe(
        `keyless rows of WAL positions below ${manifest.header.historyFloor} are past the history retention and no longer kept; reading from the oldest kept seq, ${oldestKept}`,
      );
    });
  });

  describe('reading table segments', () => {
    it('reads the keyless rows a table holds exactly as from segments, from the start and from every seq', async () => {
      const h = await shard();
      const config = testConfig('s1=t');
      const deps = testDeps(h.f.memory, config);
      const exportDeps = exportDepsOf(h.f, { tableHold: tableHold(h.f.memory, config) });
      let watermark = 0;
      for (let round = 0; round < 4; round++) {
        await h.put(keylessRows(round * 3, round * 3 + 3));
        await h.flush();
        await h.put([{ id: `k${round % 2}`, round }], 'id');
        await h.flush();
        h.f.clock.advance(1000);
        deps.clock.ms = h.f.clock.now();
        expect((await appendTable(deps, 't', ['s1'])).status).toBe('committed');
        watermark = (await exportShard(exportDeps, 's1')).coveredPosition!;
      }
      const manifest = await manifestAt(h.f.memory, watermark);
      expect(manifest.segments.map((segment) => segment.v)).toEqual([2, 2, 2, 2]);
      await h.put(keylessRows(100, 102));
      await h.flush();
      expect(await collect(tailShard(h.f.memory, 's1'))).toEqual(h.expected(1, watermark));
      for (const fromSeq of new Set(h.rows.map((row) => row.seq))) {
        expect(await collect(tailShard(h.f.memory, 's1', { fromSeq }))).toEqual(
          h.expected(fromSeq, watermark),
        );
      }
    });
  });
});
