import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Projector, projectRow } from '../../lib/table/project.js';
import type { TypedColumn } from '../../lib/table/schema.js';
import { projectRowReference } from './project-reference.js';

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

describe('Projector', () => {
  describe('project', () => {
    const columns: TypedColumn[] = [
      { name: 'd', type: 'decimal(10,2)' },
      { name: 'p', type: 'decimal(3,0)' },
      { name: 'e', type: 'decimal(38,5)' },
      { name: 'l', type: 'long' },
      { name: 'x', type: 'double' },
      { name: 's', type: 'string' },
      { name: 'b', type: 'boolean' },
      { name: 't', type: 'timestamptz' },
      { name: 'dt', type: 'date' },
    ];
    const digits = (min: number, max: number) =>
      fc
        .array(fc.constantFrom(...'0123456789'), { minLength: min, maxLength: max })
        .map((d) => d.join(''));
    const number = fc.oneof(
      fc.integer().map(String),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
      fc
        .tuple(
          fc.boolean(),
          fc.oneof(fc.constant('0'), fc.tuple(fc.constantFrom(...'123456789'), digits(0, 22))),
          fc.option(digits(1, 12)),
          fc.option(
            fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), digits(1, 3)),
          ),
        )
        .map(([minus, int, fraction, exponent]) => {
          const integer = typeof int === 'string' ? int : int.join('');
          return `${minus ? '-' : ''}${integer}${fraction === null ? '' : `.${fraction}`}${exponent === null ? '' : exponent.join('')}`;
        }),
    );
    const pad = (n: number, width: number) => String(n).padStart(width, '0');
    const timestamp = fc
      .tuple(
        fc.oneof(fc.integer({ min: 0, max: 9999 }), fc.constantFrom(1970, 2000, 2024, 2100, 50)),
        fc.integer({ min: 0, max: 13 }),
        fc.integer({ min: 0, max: 32 }),
        fc.constantFrom('T', 't', ' ', 'x'),
        fc.integer({ min: 0, max: 25 }),
        fc.integer({ min: 0, max: 61 }),
        fc.integer({ min: 0, max: 61 }),
        fc.option(digits(0, 10)),
        fc.constantFrom('Z', 'z', '+01:00', '-23:59', '+24:00', '+05:60', '', '+0100', '-00:00'),
      )
      .map(
        ([y, mo, d, sep, h, mi, s, fraction, zone]) =>
          `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}${sep}${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}${fraction === null ? '' : `.${fraction}`}${zone}`,
      );
    const date = timestamp.map((t) => t.slice(0, 10));
    const string = fc.oneof(timestamp, date, fc.string({ unit: 'binary' }), fc.constant('a"b\\c'));
    const scalar = fc.oneof(
      number,
      string.map((s) => JSON.stringify(s)),
      // The same strings with every character escaped, as a sender may spell them.
      string.map(
        (s) =>
          `"${[...s].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"`,
      ),
      fc.constantFrom('true', 'false', 'null'),
    );
    const value = fc.letrec<{ value: string }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        scalar,
        fc.array(tie('value')).map((items) => `[${items.join(',')}]`),
        fc
          .array(fc.tuple(fc.constantFrom('d', 't', 'x', '{', ']'), tie('value')))
          .map((members) => `{${members.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
      ),
    })).value;
    const name = fc.oneof(
      fc.constantFrom(...columns.map((c) => c.name), 'dd', 'q', ''),
      fc.constantFrom('"\\u0064"', '"\\u0074"', '"s\\"x"').map((raw) => ({ raw })),
    );
    const row = fc
      .array(fc.tuple(name, value), { maxLength: 12 })
      .map(
        (members) =>
          `{${members.map(([k, v]) => `${typeof k === 'string' ? JSON.stringify(k) : k.raw}:${v}`).join(',')}}`,
      );

    it('reads every row as the reference projection does (one pass, values exact)', () => {
      const projector = new Projector(columns);
      fc.assert(
        fc.property(row, (text) => {
          JSON.parse(text); // the generator makes JSON, as every stored row is
          expect(projector.project(text)).toEqual(projectRowReference(columns, text));
        }),
        { numRuns: 1000, seed: 24 },
      );
    });

    it('reads timestamps and dates of the years 0000-0099 as themselves', () => {
      const projector = new Projector([
        { name: 't', type: 'timestamptz' },
        { name: 'd', type: 'date' },
      ]);
      const year50 = new Date(0);
      year50.setUTCFullYear(50, 0, 2);
      expect(projector.project('{"t":"0050-01-02T00:00:01Z","d":"0050-01-02"}')).toEqual({
        values: [BigInt(year50.getTime() + 1000) * 1000n, year50.getTime() / 86_400_000],
        refused: [],
      });
    });
  });
});
