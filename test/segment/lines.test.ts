/**
 * The canonical segment line reader returns exactly what the generic parse
 * returns for every line it takes, and leaves every other line to it, so a
 * segment reads the same (and fails with the same message) either way.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SegmentRow } from '../../lib/segment/format.js';
import {
  canonicalSegmentLine,
  parseAnySegmentLine,
  parseSegmentLine,
  segmentLine,
} from '../../lib/segment/lines.js';

const SEED = 20_261_202;

/** The generic parse's row, or its message. */
function generic(text: string): SegmentRow | string {
  try {
    return parseAnySegmentLine(text, (problem) => {
      throw new Error(problem);
    });
  } catch (error) {
    return (error as Error).message;
  }
}

const rowArb = fc
  .dictionary(fc.string({ unit: 'binary', maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), {
    maxKeys: 4,
  })
  .map((row) => JSON.stringify(row));
const lineArb = fc
  .record({
    seq: fc.oneof(fc.nat(), fc.maxSafeNat()),
    offset: fc.oneof(fc.nat(), fc.maxSafeNat()),
    row: rowArb,
  })
  .map(({ seq, offset, row }) => segmentLine(seq, offset, row));
const editArb = fc.record({
  at: fc.nat(),
  text: fc.constantFrom('}', '{', '"', ',"x":1', ' ', '0', '\\', 'é', '-'),
});

describe('canonicalSegmentLine', () => {
  it('returns what the generic parse returns, for every line it takes', () => {
    fc.assert(
      fc.property(lineArb, fc.option(editArb, { nil: undefined }), (line, edit) => {
        const at = edit ? edit.at % line.length : 0;
        const edited = edit ? line.slice(0, at) + edit.text + line.slice(at) : line;
        const text = Buffer.from(edited, 'utf8').toString('utf8');
        const fast = canonicalSegmentLine(text);
        if (fast !== undefined) expect(fast).toStrictEqual(generic(text));
      }),
      { seed: SEED, numRuns: 5000 },
    );
  });

  it('takes every line the writer writes whose seq is positive and whose counts have at most 15 digits', () => {
    fc.assert(
      fc.property(lineArb, (line) => {
        const [, seq, offset] = /"seq":(\d+),"offset":(\d+)/.exec(line)!;
        if (seq === '0' || seq!.length > 15 || offset!.length > 15) return;
        expect(canonicalSegmentLine(line)).toStrictEqual(generic(line));
      }),
      { seed: SEED, numRuns: 2000 },
    );
  });

  it('leaves lines out of the exact form to the generic parse, which refuses them as before', () => {
    for (const [line, message] of [
      ['{"seq":01,"offset":2,"row":{}}', /not a segment line/],
      ['{"seq":0,"offset":2,"row":{}}', /seq must be a positive integer, got 0/],
      ['{"seq":1,"offset":-2,"row":{}}', /offset must be a non-negative integer/],
      ['{"seq":1,"offset":2,"row":{"a":1},"x":1}', /not a segment line/],
      ['{"seq":1,"offset":2,"row":{"a":"}"}', /not a segment line/],
      ['{"seq":1, "offset":2,"row":{}}', /not in canonical form/],
      ['{"offset":2,"seq":1,"row":{}}', /not in canonical form/],
      ['{"seq":1.0,"offset":2,"row":{}}', /not in canonical form/],
      ['{"seq":1,"offset":2,"row":[]}', /not a segment line/],
    ] as const) {
      expect(canonicalSegmentLine(line), line).toBeUndefined();
      expect(
        () =>
          parseSegmentLine(line, (problem) => {
            throw new Error(problem);
          }),
        line,
      ).toThrow(message);
    }
  });

  it('takes a line whose counts have 16 digits only through the generic parse', () => {
    const line = segmentLine(1_234_567_890_123_456, 7, '{"n":1}');
    expect(canonicalSegmentLine(line)).toBeUndefined();
    expect(generic(line)).toStrictEqual({ seq: 1_234_567_890_123_456, offset: 7, text: '{"n":1}' });
  });
});
