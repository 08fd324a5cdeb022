/**
 * The canonical row reader returns exactly what the generic path
 * (`parseRow(parseRawRecord(line))`) returns for every line it takes, and
 * leaves every line not in the encoder's exact form to that path, so the
 * readers' verdicts (decodeWal and the scan of replay and export) cannot differ.
 */
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CorruptDataError } from '../../lib/errors.js';
import { scanWal } from '../../lib/recovery/wal-scan.js';
import { ROW_TEXT_NOT_READ, readCanonicalRow } from '../../lib/wal/canonical-row.js';
import { decodeWal } from '../../lib/wal/decode.js';
import { encodeWal } from '../../lib/wal/encode.js';
import type { WalRow } from '../../lib/wal/format.js';
import { parseRawRecord, parseRow } from '../../lib/wal/lines-v1.js';
import { BASE_BYTES } from './corrupt-cases.js';
import { bodyLines, caught, chunks, KEY, reframe, walObject } from './helpers.js';

const SEED = 20_261_130;

/** What the generic path makes of a row line (or the message it fails with); `framed`: a v3 row. */
function generic(line: string, framed = false): WalRow | string {
  const fields = parseRawRecord(line);
  if (!fields) return 'not a raw record';
  try {
    return parseRow(
      fields,
      'line',
      (problem) => {
        throw new Error(problem);
      },
      framed,
    );
  } catch (error) {
    return (error as Error).message;
  }
}

/** The canonical reader on one line's bytes, as the frame scanner calls it. */
function canonical(line: string, framed = false): WalRow | undefined {
  const bytes = Buffer.from(`${line}\n`, 'utf8');
  const end = bytes.length - 1;
  return readCanonicalRow(bytes, 0, end, Buffer.byteLength(line) === line.length, framed);
}

const rowArb = fc
  .dictionary(fc.string({ unit: 'binary', maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), {
    maxKeys: 4,
  })
  .map((row) => JSON.stringify(row));
const keyArb = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 8 }).map((key) => JSON.stringify(key)),
  fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })).map(String),
  fc.constantFrom('12345678901234567890', '1e+400', '-0', '1E2'),
);
/** Row lines in the encoder's form, and variations of it. */
const lineArb = fc
  .record({
    seq: fc.oneof(fc.nat(), fc.maxSafeNat()),
    offset: fc.oneof(fc.nat(), fc.maxSafeNat()),
    key: fc.option(keyArb, { nil: undefined }),
    del: fc.boolean(),
    row: fc.option(rowArb, { nil: undefined }),
  })
  .map(({ seq, offset, key, del, row }) => {
    let line = `{"t":"r","s":${seq},"o":${offset}`;
    if (key !== undefined) line += `,"k":${key}`;
    if (del) line += ',"d":1';
    if (row !== undefined) line += `,"row":${row}`;
    return `${line}}`;
  });
const editArb = fc.record({
  at: fc.nat(),
  text: fc.constantFrom('}', '{', '"', ',"x":1', ' ', '0', '\\', 'é'),
});

describe('readCanonicalRow', () => {
  it('returns what the generic path returns, for every line it takes', () => {
    fc.assert(
      fc.property(lineArb, fc.option(editArb, { nil: undefined }), (line, edit) => {
        const at = edit ? edit.at % line.length : 0;
        const edited = edit ? line.slice(0, at) + edit.text + line.slice(at) : line;
        // Lines are decoded from valid UTF-8: an edit inside a surrogate pair reads as U+FFFD.
        const text = Buffer.from(edited, 'utf8').toString('utf8');
        const fast = canonical(text);
        if (fast !== undefined) expect(fast).toStrictEqual(generic(text));
      }),
      { seed: SEED, numRuns: 5000 },
    );
  });

  it('returns what the generic path returns for a v3 row line (no seq or offset), for every line it takes', () => {
    fc.assert(
      fc.property(lineArb, fc.option(editArb, { nil: undefined }), (line, edit) => {
        const framedLine = line.replace(/^\{"t":"r","s":\d+,"o":\d+/, '{"t":"r"');
        const at = edit ? edit.at % framedLine.length : 0;
        const edited = edit
          ? framedLine.slice(0, at) + edit.text + framedLine.slice(at)
          : framedLine;
        const text = Buffer.from(edited, 'utf8').toString('utf8');
        const fast = canonical(text, true);
        if (fast !== undefined) expect(fast).toStrictEqual(generic(text, true));
        // Unedited, a line whose key needs no escape is always taken.
        const key = /"k":("(?:[^"\\]|\\.)*")/.exec(framedLine)?.[1];
        const plain =
          key === undefined || (!key.includes('\\') && key === JSON.stringify(JSON.parse(key)));
        if (edit === undefined && plain) expect(fast).toStrictEqual(generic(text, true));
      }),
      { seed: SEED, numRuns: 5000 },
    );
  });

  it('leaves a v3 row line with a seq or offset, or a v1 line without, to the generic path', () => {
    expect(canonical('{"t":"r","s":1,"o":2,"row":{}}', true)).toBeUndefined();
    expect(canonical('{"t":"r","o":2,"row":{}}', true)).toBeUndefined();
    expect(canonical('{"t":"r","row":{}}')).toBeUndefined();
    expect(canonical('{"t":"r","row":{}}', true)).toStrictEqual({ seq: 0, offset: 0, text: '{}' });
  });

  it('takes every row line the encoder writes whose seq and offset have at most 15 digits', () => {
    fc.assert(
      fc.property(lineArb, (line) => {
        const digits = /"s":(\d+),"o":(\d+)/.exec(line)!;
        const key = /"k":("(?:[^"\\]|\\.)*")/.exec(line)?.[1];
        const keyEscaped =
          key !== undefined && (key.includes('\\') || key !== JSON.stringify(JSON.parse(key)));
        if (digits[1]!.length > 15 || digits[2]!.length > 15 || keyEscaped) return;
        expect(canonical(line)).toStrictEqual(generic(line));
      }),
      { seed: SEED, numRuns: 2000 },
    );
  });

  it('leaves lines out of canonical form to the generic path', () => {
    for (const line of [
      '{"t":"r","s":1,"o":2,"row":{"n":2},"x":1}',
      '{"t":"r","s":1,"o":2,"row":{"n":2},"x":{}}',
      '{"t":"r","s":01,"o":2,"row":{}}',
      '{"t":"r","s":1.0,"o":2,"row":{}}',
      '{"t":"r", "s":1,"o":2,"row":{}}',
      '{"t":"r","o":2,"s":1,"row":{}}',
      '{"t":"r","s":1,"o":2,"k":"a\\"b","row":{}}',
      '{"t":"r","s":1,"o":2,"k":01,"row":{}}',
      '{"t":"r","s":1,"o":2,"k":"a","d":true}',
      '{"t":"r","s":1,"o":2,"k":"a","d":12}',
      '{"t":"r","s":1234567890123456,"o":2,"row":{}}',
      '{"t":"r","s":1,"o":2,"row":{"a":"}"}',
      '{"t":"r","s":1,"o":2,"row":null}',
    ]) {
      expect(canonical(line), line).toBeUndefined();
    }
  });

  it('takes the same lines without copying the row when asked for no text', () => {
    fc.assert(
      fc.property(lineArb, fc.option(editArb, { nil: undefined }), (line, edit) => {
        const at = edit ? edit.at % line.length : 0;
        const text = Buffer.from(
          edit ? line.slice(0, at) + edit.text + line.slice(at) : line,
          'utf8',
        ).toString('utf8');
        const bytes = Buffer.from(`${text}\n`, 'utf8');
        const ascii = bytes.length - 1 === text.length;
        const withText = readCanonicalRow(bytes, 0, bytes.length - 1, ascii);
        const without = readCanonicalRow(bytes, 0, bytes.length - 1, ascii, false, false);
        if (withText?.text === undefined) expect(without).toStrictEqual(withText);
        else expect(without).toStrictEqual({ ...withText, text: ROW_TEXT_NOT_READ });
      }),
      { seed: SEED, numRuns: 3000 },
    );
  });

  it('reads the key and row exactly, non-ASCII and big numbers included', () => {
    expect(
      canonical('{"t":"r","s":7,"o":9,"k":12345678901234567890,"row":{"id":1E400,"n":"Zoë 🚀"}}'),
    ).toStrictEqual({
      seq: 7,
      offset: 9,
      key: '12345678901234567890',
      text: '{"id":1E400,"n":"Zoë 🚀"}',
    });
    expect(canonical('{"t":"r","s":0,"o":0,"k":"Zürich","d":1}')).toStrictEqual({
      seq: 0,
      offset: 0,
      key: '"Zürich"',
      delete: true,
    });
  });
});

describe('a row line with a member after its row', () => {
  const lines = bodyLines(BASE_BYTES);
  const cases = [
    [
      'a scalar member',
      '{"t":"r","s":12,"o":101,"row":{"n":2},"x":1}',
      /line 3: unknown row fields \[x\]/,
    ],
    [
      'an object member',
      '{"t":"r","s":12,"o":101,"row":{"n":2},"x":{}}',
      /line 3: unknown row fields \[x\]/,
    ],
    [
      'a second row',
      '{"t":"r","s":12,"o":101,"row":{"n":2},"row":{"n":3}}',
      /line 3: row must be a JSON object/,
    ],
  ] as const;
  for (const [what, line, message] of cases) {
    it(`is refused by decodeWal and by the scan of replay and export (${what})`, async () => {
      const bytes = reframe([lines[0]!, lines[1]!, line, lines[3]!]);
      const decoded = await caught(() => decodeWal(KEY, bytes));
      const scanned = await caught(() =>
        scanWal('s1', 7, chunks(bytes, 5), { header: () => true, row: () => undefined }),
      );
      const scannedWithoutText = await caught(() =>
        scanWal('s1', 7, chunks(bytes, 5), {
          header: () => true,
          row: () => undefined,
          text: false,
        }),
      );
      expect(decoded).toBeInstanceOf(CorruptDataError);
      expect(decoded.message).toMatch(message);
      expect(scanned.message).toBe(decoded.message);
      expect(scannedWithoutText.message).toBe(decoded.message);
    });
  }

  it('is told apart from a row whose strings hold the same characters', async () => {
    const object = walObject([[{ row: { n: '},"x":{' } }]]);
    const bytes = encodeWal(object);
    expect(gunzipSync(bytes).toString()).toContain('"row":{"n":"},\\"x\\":{"}}');
    const rows: WalRow[] = [];
    await scanWal('s1', 7, chunks(bytes, 5), {
      header: () => true,
      row: (row) => void rows.push(row),
    });
    expect(rows).toStrictEqual(object.rows);
  });
});
