import { crc32 } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { crc32Combine } from '../../lib/aof/crc32-combine.js';

describe(crc32Combine, () => {
  it('equals the CRC-32 of the concatenation for random parts', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 3000 }),
        fc.uint8Array({ maxLength: 3000 }),
        (a, b) => {
          const whole = crc32(Buffer.concat([a, b]));
          expect(crc32Combine(crc32(a), crc32(b), b.length)).toBe(whole);
        },
      ),
      { seed: 7, numRuns: 300 },
    );
  });

  it('handles parts longer than 2^32 bytes (lengths beyond 32-bit arithmetic)', () => {
    // zeros(n): the CRC-32 of n zero bytes, built by doubling from zeros(1).
    const zeros = new Map<number, number>([[1, crc32(Buffer.alloc(1))]]);
    for (let n = 1; n < 2 ** 33; n *= 2)
      zeros.set(2 * n, crc32Combine(zeros.get(n)!, zeros.get(n)!, n));
    const a = crc32(Buffer.from('head'));
    const inOneStep = crc32Combine(a, zeros.get(2 ** 33)!, 2 ** 33);
    const inTwoSteps = crc32Combine(
      crc32Combine(a, zeros.get(2 ** 32)!, 2 ** 32),
      zeros.get(2 ** 32)!,
      2 ** 32,
    );
    expect(inOneStep).toBe(inTwoSteps);
    expect(inOneStep).not.toBe(a);
  });
});
