/**
 * The three body forms are one put path: the same rows sent as
 * `{"rows": [...]}`, as a bare array and as NDJSON land as the same stored
 * rows, byte for byte (through the real route, the real flush and the WAL);
 * and every broken row is refused with a 4xx that names where it is in its
 * form (`body.rows[i]`, `body[i]`, `body line n`). Seeded.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { ErrorKind } from '../../lib/errors.js';
import { flushShard } from '../../lib/flush/flush-shard.js';
import { handlePut } from '../../lib/http/put-route.js';
import { BodyForm } from '../../lib/json/exact-put-body.js';
import { parsePutText } from '../../lib/put/schema.js';
import { bodyOf, EventFile, httpEvent } from '../support/events.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';
import { type PutCase, putCase, spaced } from './exact-json-arbitraries.js';
import { walRowTexts } from './stored.js';

const dynalite = useDynalite();
const SEED = 2026_12_01;

/** Whitespace runs that keep a row on its line (NDJSON) or not (the JSON forms). */
const inLine = fc.array(fc.constantFrom('', ' ', '\t'), { minLength: 1, maxLength: 4 });
const anywhere = fc.array(fc.constantFrom('', ' ', '\n', '\r\n'), { minLength: 1, maxLength: 4 });

interface Sent {
  form: BodyForm;
  text: string;
  query: Record<string, string>;
  contentType: string;
}

/** `put` in each of the three forms, spaced differently. */
function forms(put: PutCase, between: string[], lineGaps: string[]): Sent[] {
  const rows = put.rows.map((row) => spaced(row.tokens, between));
  const keyQuery: Record<string, string> = put.key === undefined ? {} : { key: put.key };
  const keyMember = put.key === undefined ? '' : `"key":${JSON.stringify(put.key)},`;
  const lines = put.rows.map((row, i) => spaced(row.tokens, lineGaps) + (i % 2 ? '\r\n\n' : '\n'));
  return [
    {
      form: BodyForm.object,
      text: `{${keyMember}"rows":[${rows.join(',')}]}`,
      query: {},
      contentType: 'application/json',
    },
    {
      form: BodyForm.array,
      text: `[${rows.join(',\n')}]`,
      query: keyQuery,
      contentType: 'application/json',
    },
    {
      form: BodyForm.ndjson,
      text: lines.join(''),
      query: keyQuery,
      contentType: 'application/x-ndjson',
    },
  ];
}

describe('put body forms', () => {
  describe('parsePutText', () => {
    it('gives the same rows for the same put in every form', () => {
      fc.assert(
        fc.property(putCase(6), anywhere, inLine, (put, between, lineGaps) => {
          const parsed = forms(put, between, lineGaps).map(
            (sent) =>
              parsePutText(sent.text, 10, [], { form: sent.form, key: sent.query.key }).rows,
          );
          expect(parsed[1]).toEqual(parsed[0]);
          expect(parsed[2]).toEqual(parsed[0]);
        }),
        { seed: SEED, numRuns: 300 },
      );
    });

    it('names the broken row by its place in each form', () => {
      fc.assert(
        fc.property(
          putCase(5),
          fc.nat(),
          fc.constantFrom('{"x":1,"x":2}', '{"x":"\\udc00"}', '7', '{"x":}'),
          (put, at, broken) => {
            const index = at % put.rows.length;
            const rows = put.rows.map((row, i) => (i === index ? broken : row.tokens.join('')));
            const key = put.key === undefined ? {} : { key: put.key };
            const refusals = [
              () => parsePutText(`{"rows":[${rows.join(',')}]}`, 10, [], key),
              () => parsePutText(`[${rows.join(',')}]`, 10, [], { form: BodyForm.array, ...key }),
              () =>
                parsePutText(`\n${rows.join('\n\n')}`, 10, [], { form: BodyForm.ndjson, ...key }),
            ].map((send) => {
              try {
                send();
              } catch (error) {
                return (error as Error).message;
              }
              throw new Error('expected a refusal');
            });
            expect(refusals[0]).toMatch(new RegExp(`^body\\.rows\\[${index}\\][.:]`));
            expect(refusals[1]).toMatch(new RegExp(`^body\\[${index}\\][.:]`));
            expect(refusals[2]).toMatch(new RegExp(`^body line ${2 * index + 2}[.:]`));
          },
        ),
        { seed: SEED, numRuns: 200 },
      );
    });
  });

  describe('handlePut', () => {
    let f: Fixture;
    beforeAll(async () => {
      f = await fixture(dynalite());
    });

    it('stores the same bytes in the WAL whichever form carried the rows', async () => {
      let shardNumber = 0;
      await fc.assert(
        fc.asyncProperty(putCase(5), anywhere, inLine, async (put, between, lineGaps) => {
          const stored: (string | undefined)[][] = [];
          for (const sent of forms(put, between, lineGaps)) {
            const shard = `forms-${shardNumber++}`;
            const result = await handlePut(
              httpEvent(EventFile.apiPut, {
                shard,
                body: sent.text,
                query: sent.query,
                headers: { 'content-type': sent.contentType },
              }),
              f.put,
            );
            expect(result.statusCode, `${sent.form}: ${result.body}`).toBe(202);
            expect(bodyOf(result)).toMatchObject({ rows: put.rows.length });
            await flushShard(f.flushDeps('ticker'), shard);
            stored.push(await walRowTexts(f, shard));
          }
          expect(stored[1]).toEqual(stored[0]);
          expect(stored[2]).toEqual(stored[0]);
        }),
        { seed: SEED, numRuns: 12 },
      );
    });

    it('answers every refused form with a 400 naming the line or index', async () => {
      const cases: [string, Record<string, string>, string, RegExp][] = [
        [
          '{"a":1}\n{"a":1,"a":2}\n',
          {},
          'application/x-ndjson',
          /^body line 2\.a: duplicate member/,
        ],
        ['[{"a":1},[2]]', {}, 'application/json', /^body\[1\]: expected a JSON object, got array$/],
        ['{"id":"a"}\n{"id":null}', { key: 'id' }, 'application/jsonl', /^body line 2\.id: /],
        ['{"logs":[{},1]}', { rows: 'logs' }, 'application/json', /^body\.logs\[1\]: /],
      ];
      for (const [text, query, contentType, message] of cases) {
        const result = await handlePut(
          httpEvent(EventFile.apiPut, {
            shard: 'refused',
            body: text,
            query,
            headers: { 'content-type': contentType },
          }),
          f.put,
        );
        expect(result.statusCode, text).toBe(400);
        const { error } = bodyOf<{ error: { kind: string; message: string } }>(result);
        expect(error.kind).toBe(ErrorKind.invalidInput);
        expect(error.message).toMatch(message);
      }
    });
  });
});
