/**
 * docs/exact-rows.md against the code: every "sent → stored", "sent →
 * answer" and "keys" example of its tables is what the put body reader does.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../lib/errors.js';
import { parsePutText } from '../../lib/put/schema.js';

const doc = readFileSync(new URL('../../docs/exact-rows.md', import.meta.url), 'utf8');

/** The rows of the table whose header is `header`, as cells without their backticks. */
function table(header: string): string[][] {
  const lines = doc.split('\n');
  const start = lines.indexOf(header);
  if (start < 0) throw new Error(`docs/exact-rows.md: no table ${header}`);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, -1)
        .split(' | ')
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

const code = (cell: string) => cell.replace(/^`|`$/g, '');

describe('docs/exact-rows.md', () => {
  it('stores each "sent" row as its "stored" text', () => {
    const rows = table('| sent | stored |');
    expect(rows.length).toBeGreaterThanOrEqual(3);
    for (const [sent, stored] of rows) {
      const parsed = parsePutText(`{"rows":[${code(sent!)}]}`, 10);
      expect(parsed.rows.map((row) => row.text)).toEqual([code(stored!)]);
    }
  });

  it('refuses each "sent" body with the documented message', () => {
    const rows = table('| sent | answer |');
    expect(rows.length).toBeGreaterThanOrEqual(7);
    for (const [sent, answer] of rows) {
      const [status, message] = answer!.split(/ (?=`)/);
      expect(status).toBe('`400`');
      let error: unknown;
      try {
        parsePutText(code(sent!), 10);
      } catch (caught) {
        error = caught;
      }
      expect(error, sent).toBeInstanceOf(InvalidInputError);
      expect((error as Error).message).toBe(code(message!));
    }
  });

  it('gives the documented key ids', () => {
    const [[rows, ids]] = table('| rows of one keyed put | key ids |') as [[string, string]];
    const bodyRows = rows.split(', ').map(code);
    const parsed = parsePutText(`{"key":"id","rows":[${bodyRows.join(',')}]}`, 10);
    expect(parsed.rows.map((row) => row.key)).toEqual(ids.split(', ').map(code));
  });
});
