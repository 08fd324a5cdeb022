import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { crc32Combine } from '../../lib/wal/crc32-combine.js';

// The concatenation property for random parts is in v3.test.ts.
describe(crc32Combine, () => {
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
