/**
 * `GzipLineUpload` records each batch's CRC-32 from its gzip member's trailer
 * (zlib computes it while compressing). A member whose trailer does not give
 * its batch's length is not believed: the object fails instead of recording
 * a CRC-32 nothing vouches for. zlib's `gzip` is wrapped here to damage the
 * trailer of the members it makes while `damage.on` is set.
 */
import { describe, expect, it, vi } from 'vitest';
import { InternalError } from '../../lib/errors.js';
import { GzipLineUpload } from '../../lib/store/gzip-lines.js';
import { MemoryObjectStore } from '../../lib/store/memory-store.js';

const damage = vi.hoisted(() => ({ on: false }));

vi.mock('node:zlib', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:zlib')>();
  type Done = (error: Error | null, member: Buffer) => void;
  const gzip = (batch: Buffer, options: import('node:zlib').ZlibOptions, done: Done) =>
    actual.gzip(batch, options, (error, member) => {
      // ISIZE, the last four bytes: the batch's length modulo 2^32.
      if (!error && damage.on)
        member.writeUInt32LE(member.readUInt32LE(member.length - 4) + 1, member.length - 4);
      done(error, member);
    });
  return { ...actual, gzip };
});

describe('GzipLineUpload', () => {
  describe('finish', () => {
    it('records the CRC-32 combined from the members when their trailers hold', async () => {
      damage.on = false;
      const upload = new GzipLineUpload(new MemoryObjectStore(), 'k', 1);
      const text = Buffer.from('{"a":1}\n');
      await upload.line('{"a":1}');
      expect(await upload.finish()).toBe('created');
      const { crc32 } = await vi.importActual<typeof import('node:zlib')>('node:zlib');
      expect(upload.stats.crc32).toBe(crc32(text));
    });

    it('fails with an InternalError when a member does not end with its batch length', async () => {
      damage.on = true;
      const upload = new GzipLineUpload(new MemoryObjectStore(), 'k', 1);
      await upload.line('{"a":1}');
      const error = await upload.finish().catch((e: unknown) => e);
      damage.on = false;
      expect(error).toBeInstanceOf(InternalError);
      expect((error as Error).message).toContain("does not end with its batch's length");
    });
  });
});
