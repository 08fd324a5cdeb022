/**
 * CRC-32 of a concatenation from the CRCs of its parts (zlib's
 * `crc32_combine`, which Node does not expose). The AOF writer compresses the
 * keyless section while it folds, before the header and keyed section that
 * precede it in the file exist; the trailer's CRC runs over the file's order,
 * so it is combined from the two sections' CRCs instead of recomputed.
 */

const POLY = 0xedb88320;

function gf2Times(matrix: Uint32Array, vector: number): number {
  let sum = 0;
  let v = vector >>> 0;
  for (let i = 0; v !== 0; i++, v >>>= 1) if (v & 1) sum ^= matrix[i]!;
  return sum >>> 0;
}

function gf2Square(square: Uint32Array, matrix: Uint32Array): void {
  for (let n = 0; n < 32; n++) square[n] = gf2Times(matrix, matrix[n]!);
}

/** The CRC-32 of `A ‖ B` given `crc32(A)`, `crc32(B)` and B's length in bytes. */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  if (lengthB <= 0) return crcA >>> 0;
  const even = new Uint32Array(32);
  const odd = new Uint32Array(32);
  odd[0] = POLY; // the operator for one zero bit
  for (let n = 1, row = 1; n < 32; n++, row <<= 1) odd[n] = row >>> 0;
  gf2Square(even, odd); // two zero bits
  gf2Square(odd, even); // four zero bits
  let crc = crcA >>> 0;
  let length = lengthB;
  // Apply length zero bytes to crcA, squaring the operator for each bit of length.
  for (;;) {
    gf2Square(even, odd);
    if (length % 2 === 1) crc = gf2Times(even, crc);
    length = Math.floor(length / 2);
    if (length === 0) break;
    gf2Square(odd, even);
    if (length % 2 === 1) crc = gf2Times(odd, crc);
    length = Math.floor(length / 2);
    if (length === 0) break;
  }
  return (crc ^ crcB) >>> 0;
}
