/**
 * Parallel gzip members (`lib/store/gzip-members.ts`): their concatenation
 * is one gzip stream holding the batches in order (M1), the producer waits
 * once `inFlight` members are held (M2), and a failure ends the members with
 * it (M3). And an object written through `GzipLineUpload` past one batch is
 * several members that read back whole.
 */
import { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../lib/seeded-random.js';
import { GzipLineUpload, readGzipLines } from '../../lib/store/gzip-lines.js';
import { GzipMembers } from '../../lib/store/gzip-members.js';
import { MemoryObjectStore } from '../../lib/store/memory-store.js';
import { memberLengths } from '../support/gzip-members.js';

async function collect(queue: GzipMembers): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for await (const member of queue.members()) out.push(member);
  return out;
}

describe('GzipMembers', () => {
  describe('members', () => {
    it('yields one member per batch, in order, whatever order they finish in', async () => {
      const random = seededRandom(7);
      // Batches of very different sizes finish out of order on the pool.
      const batches = Array.from({ length: 12 }, (_, i) =>
        Buffer.from(`${i}:`.repeat(1 + Math.floor(random() * (i % 3 === 0 ? 50_000 : 10)))),
      );
      const queue = new GzipMembers(6, 4);
      const consumed = collect(queue);
      for (const batch of batches) {
        await queue.room();
        queue.push(batch);
      }
      queue.end();
      const members = await consumed;
      expect(members.map((m) => gunzipSync(m).toString())).toEqual(
        batches.map((b) => b.toString()),
      );
      const whole = Buffer.concat(members);
      expect(gunzipSync(whole)).toEqual(Buffer.concat(batches));
      expect(memberLengths(whole)).toEqual(members.map((m) => m.length));
    });

    it('ends with one empty member when no batch came, so the object is still gzip', async () => {
      const queue = new GzipMembers(6, 2);
      queue.end();
      const members = await collect(queue);
      expect(members).toHaveLength(1);
      expect(gunzipSync(Buffer.concat(members)).length).toBe(0);
    });
  });

  describe('room', () => {
    it('waits while inFlight members are held, and resolves when the consumer takes one', async () => {
      const queue = new GzipMembers(1, 2);
      queue.push(Buffer.from('a'));
      queue.push(Buffer.from('b'));
      let roomy = false;
      const room = queue.room().then(() => {
        roomy = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(roomy).toBe(false);
      const iterator = queue.members();
      expect(gunzipSync((await iterator.next()).value!).toString()).toBe('a');
      await room;
      expect(roomy).toBe(true);
    });
  });

  describe('fail', () => {
    it('ends the members with the error and wakes a waiting producer with it', async () => {
      const queue = new GzipMembers(1, 1);
      queue.push(Buffer.from('a'));
      const room = queue.room();
      const boom = new Error('abandoned');
      queue.fail(boom);
      await expect(room).rejects.toBe(boom);
      await expect(collect(queue)).rejects.toBe(boom);
    });
  });
});

describe('GzipLineUpload', () => {
  it('writes an object past one batch as several members that read back line for line', async () => {
    const store = new MemoryObjectStore();
    const upload = new GzipLineUpload(store, 'k', 6);
    const lines = Array.from(
      { length: 30_000 },
      (_, i) => `{"n":${i},"pad":"${'é'.repeat(i % 50)}${'x'.repeat(60)}"}`,
    );
    for (const line of lines) await upload.line(line);
    expect(await upload.finish()).toBe('created');
    const bytes = Buffer.from((await store.get('k'))!);
    expect(memberLengths(bytes).length).toBeGreaterThan(1);
    expect(upload.stats.bytes).toBe(bytes.length);
    const read: string[] = [];
    const stats = await readGzipLines('k', Readable.from([bytes]), (line) => {
      read.push(line.toString('utf8'));
    });
    expect(read).toEqual(lines);
    expect(stats).toEqual(upload.stats);
  });

  it('publishes nothing when abandoned after members were compressed', async () => {
    const store = new MemoryObjectStore();
    const upload = new GzipLineUpload(store, 'k', 6);
    for (let i = 0; i < 20_000; i++) await upload.line(`{"n":${i},"pad":"${'x'.repeat(80)}"}`);
    await upload.abort();
    expect(await store.get('k')).toBeUndefined();
  });
});
