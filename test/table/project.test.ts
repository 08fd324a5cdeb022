import { describe, expect, it } from 'vitest';
import { projectRow } from '../../lib/table/project.js';
import type { TypedColumn } from '../../lib/table/schema.js';

const one = (type: TypedColumn['type'], json: string) =>
  projectRow([{ name: 'v', type }], `{"v":${json}}`);

describe('projectRow', () => {
  it('stores a value only when its type holds it exactly, and counts the rest', () => {
    const cases: Array<[TypedColumn['type'], string, unknown]> = [
      ['long', '9223372036854775807', 9223372036854775807n],
      ['long', '9223372036854775808', undefined],
      ['long', '1e3', 1000n],
      ['long', '1.5', undefined],
      ['long', '"1"', undefined],
      ['double', '0.1', 0.1],
      ['double', '1.00000000000000000001', undefined],
      ['double', '1e400', undefined],
      ['decimal(5,2)', '123.45', 12345n],
      ['decimal(5,2)', '1.005', undefined],
      ['decimal(5,2)', '1234.5', undefined],
      ['decimal(5,2)', '-0.50', -50n],
      ['decimal(5,2)', '1e-400', undefined],
      ['string', '"a\\u00e9"', 'aé'],
      ['string', '1', undefined],
      ['boolean', 'true', true],
      ['boolean', '"true"', undefined],
      [
        'timestamptz',
        '"2026-12-01T10:00:00.123456+01:00"',
        BigInt(Date.UTC(2026, 11, 1, 9)) * 1000n + 123456n,
      ],
      ['timestamptz', '"2026-12-01T10:00:00.1234567Z"', undefined],
      ['timestamptz', '"2026-12-01T10:00:00"', undefined],
      ['timestamptz', '"2026-02-30T10:00:00Z"', undefined],
      ['date', '"2026-12-01"', Date.UTC(2026, 11, 1) / 86_400_000],
      ['date', '"2026-13-01"', undefined],
    ];
    for (const [type, json, expected] of cases) {
      const { values, refused } = one(type, json);
      if (expected === undefined) {
        expect([type, json, values[0], refused], `${type} ${json}`).toEqual([
          type,
          json,
          null,
          ['v'],
        ]);
      } else {
        expect([type, json, values[0], refused], `${type} ${json}`).toEqual([
          type,
          json,
          expected,
          [],
        ]);
      }
    }
  });

  it('finds top-level members past nested values, strings with brackets and escaped names', () => {
    const text =
      '{"a":{"v":1,"x":[{"v":2}]},"s":"} ] \\" {","v\\u0031":5,"arr":[1,[2,{"v":3}]],"v":4}';
    expect(
      projectRow(
        [
          { name: 'v', type: 'long' },
          { name: 'v1', type: 'long' },
        ],
        text,
      ).values,
    ).toEqual([4n, 5n]);
  });

  it('leaves a missing member, a null and a delete null without counting them', () => {
    expect(projectRow([{ name: 'v', type: 'long' }], '{"w":1}')).toEqual({
      values: [null],
      refused: [],
    });
    expect(one('long', 'null')).toEqual({ values: [null], refused: [] });
    expect(projectRow([{ name: 'v', type: 'long' }], undefined)).toEqual({
      values: [null],
      refused: [],
    });
  });
});
