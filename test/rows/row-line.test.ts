/**
 * The "row is the last member" scan (`objectEnd`, its byte twin
 * `objectEndInBytes`) against the plain character loop it replaced, and
 * `readRowLine`'s refusal of a line with a member after its row.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { objectEnd, objectEndInBytes, readRowLine } from '../../lib/rows/row-line.js';

const SEED = 20_261_130;

/** The character loop `objectEnd` replaced: the reference its answers must match. */
function referenceObjectEnd(text: string): number {
  if (text.charCodeAt(0) !== 0x7b) return -1;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x7b || c === 0x5b) {
      depth++;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/** Text made of JSON's structural characters, escapes and a little else (non-ASCII included), often starting with `{`. */
const jsonish = fc
  .array(fc.constantFrom('{', '}', '[', ']', '"', '\\', ',', ':', 'a', '1', ' ', 'é', '🚀', '\n'), {
    maxLength: 40,
  })
  .map((parts) => parts.join(''));
const textArb = fc.oneof(
  jsonish.map((t) => `{${t}`),
  jsonish,
);

/** Valid rows: whatever JSON.stringify makes of generated objects. */
const rowArb = fc
  .dictionary(fc.string({ unit: 'binary', maxLength: 6 }), fc.jsonValue({ maxDepth: 3 }), {
    maxKeys: 5,
  })
  .map((row) => JSON.stringify(row));

describe('row-line', () => {
  describe('objectEnd', () => {
    it('finds the end the character loop finds, for any text and any bound', () => {
      fc.assert(
        fc.property(textArb, fc.nat(), (text, cut) => {
          const to = cut % (text.length + 1);
          expect(objectEnd(text, 0, to)).toBe(referenceObjectEnd(text.slice(0, to)));
          expect(objectEnd(text)).toBe(referenceObjectEnd(text));
        }),
        { seed: SEED, numRuns: 3000 },
      );
    });

    it('returns the end of a valid row, whatever its strings hold', () => {
      fc.assert(
        fc.property(rowArb, (row) => {
          expect(objectEnd(`${row},"x":1`)).toBe(row.length);
        }),
        { seed: SEED, numRuns: 500 },
      );
    });

    it('looks from `from` to `to` only', () => {
      const line = '{"t":"r","row":{"a":"}"}}';
      expect(objectEnd(line, 15, line.length - 1)).toBe(line.length - 1);
      expect(objectEnd(line, 15, line.length - 2)).toBe(-1);
      expect(objectEnd(line, 14, line.length)).toBe(-1);
    });
  });

  describe('objectEndInBytes', () => {
    it('gives the answer objectEnd gives on the decoded text, in bytes', () => {
      fc.assert(
        fc.property(textArb, (text) => {
          const bytes = Buffer.from(text, 'utf8');
          const end = objectEnd(text);
          const expected = end === -1 ? -1 : Buffer.byteLength(text.slice(0, end));
          expect(objectEndInBytes(bytes, 0, bytes.length)).toBe(expected);
        }),
        { seed: SEED, numRuns: 3000 },
      );
    });
  });

  describe('readRowLine', () => {
    it('refuses a line with a member after its row', () => {
      expect(readRowLine('{"t":"r","s":1,"o":2,"row":{"n":2},"x":1}')).toBeUndefined();
      expect(readRowLine('{"t":"r","s":1,"o":2,"row":{"n":2},"x":{}}')).toBeUndefined();
      expect(readRowLine('{"t":"r","s":1,"o":2,"row":{"n":"},\\"x\\":{"}}')).toMatchObject({
        rowText: '{"n":"},\\"x\\":{"}',
      });
    });
  });
});
