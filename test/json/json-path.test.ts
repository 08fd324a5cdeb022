import { describe, expect, it } from 'vitest';
import { renderJsonPath } from '../../lib/json/json-path.js';

describe('renderJsonPath', () => {
  it('writes identifiers with dots and indexes in brackets', () => {
    expect(renderJsonPath('body', ['rows', 3, 'user', '$id', '_x1'])).toBe(
      'body.rows[3].user.$id._x1',
    );
  });

  it('quotes names that are not identifiers, so the path stays unambiguous', () => {
    expect(renderJsonPath('body', ['a b', '', '1x', 'a.b', 'é'])).toBe(
      'body["a b"][""]["1x"]["a.b"]["é"]',
    );
  });

  it('cuts a long name and marks the cut', () => {
    const name = 'n'.repeat(100);
    expect(renderJsonPath('body', [name])).toBe(`body["${'n'.repeat(64)}"…]`);
  });

  it('keeps both ends of a deep path and counts what it left out', () => {
    const path = Array.from({ length: 40 }, (_, i) => i);
    expect(renderJsonPath('body', path)).toBe(
      'body[0][1][2][3][4][5][6][7]…(24 more)…[32][33][34][35][36][37][38][39]',
    );
  });

  it('writes a path of exactly twice the kept ends in full', () => {
    const path = Array.from({ length: 16 }, () => 'a');
    expect(renderJsonPath('$', path)).toBe(`$${'.a'.repeat(16)}`);
  });
});
