/**
 * CRC-32 of a concatenation from the CRCs of its parts (zlib's
 * `crc32_combine`, which Node does not expose): a WAL v3 object's trailer
 * checksums every decompressed byte, and the flusher knows a batch's CRC and
 * length from its gzip member's trailer without decompressing it.
 * Arithmetic is over GF(2) modulo the reflected CRC-32 polynomial.
 */

const POLY = 0xedb88320;

/** a(x) * b(x) modulo p(x), reflected. */
function multModP(a: number, b: number): number {
  let m = 0x80000000;
  let p = 0;
  let bb = b >>> 0;
  for (;;) {
    if ((a & m) !== 0) {
      p ^= bb;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    bb = bb & 1 ? (bb >>> 1) ^ POLY : bb >>> 1;
  }
  return p >>> 0;
}

/** x^(2^n) modulo p(x), n = 0..31. */
const X2N: number[] = (() => {
  const table: number[] = [];
  let p = 0x40000000; // x^1
  table.push(p);
  for (let n = 1; n < 32; n++) {
    p = multModP(p, p);
    table.push(p);
  }
  return table;
})();

/** x^(n * 2^k) modulo p(x). */
function x2nModP(n: number, k: number): number {
  let p = 0x80000000; // x^0
  let rest = n;
  let kk = k;
  while (rest > 0) {
    if (rest % 2 === 1) p = multModP(X2N[kk & 31]!, p);
    rest = Math.floor(rest / 2);
    kk++;
  }
  return p;
}

/** The CRC-32 of A followed by B, given crc(A), crc(B) and B's length in bytes. */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  return (multModP(x2nModP(lengthB, 3), crcA >>> 0) ^ (crcB >>> 0)) >>> 0;
}
