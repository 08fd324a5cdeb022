import { describe, expect, it } from 'vitest';
import { ensureTable } from '../../../lib/memtable/create-table.js';
import { seededRandom } from '../../../lib/seeded-random.js';
import { freshTable, useDynalite } from '../harness.js';
import { type Outcome, runOnBoth, tableContents } from './differential.js';
import { MemoryDynamoDB } from './memory-dynamodb.js';
import { shardwalCommands } from './shardwal-commands.js';

const dynalite = useDynalite();

/** What kind of answer an outcome is, to show the sequences exercised every path. */
function kindOf(outcome: Outcome): string {
  if ('output' in outcome) return 'ok';
  return outcome.error.name;
}

describe('MemoryDynamoDB', () => {
  describe('send', () => {
    it.each([1, 2, 3])(
      'answers seeded shardwal-shaped commands exactly as dynalite does (seed %i)',
      async (seed) => {
        const reference = await freshTable(dynalite());
        const memory = new MemoryDynamoDB();
        await ensureTable({ client: memory as never, tableName: reference.tableName });
        const next = shardwalCommands(reference.tableName, seededRandom(seed));
        const kinds = new Map<string, number>();
        for (let step = 0; step < 400; step++) {
          const generated = next();
          const both = await runOnBoth(reference.client, memory, generated);
          expect({ step, label: generated.label, outcomes: both.subject }).toEqual({
            step,
            label: generated.label,
            outcomes: both.reference,
          });
          for (const outcome of both.reference) {
            kinds.set(kindOf(outcome), (kinds.get(kindOf(outcome)) ?? 0) + 1);
          }
        }
        expect(await tableContents(memory, reference.tableName)).toEqual(
          await tableContents(reference.client, reference.tableName),
        );
        // The sequence went down every road: successes, lost conditions, refused requests.
        expect(kinds.get('ok')).toBeGreaterThan(100);
        expect(kinds.get('ConditionalCheckFailedException')).toBeGreaterThan(20);
        expect(kinds.get('ValidationException')).toBeGreaterThan(5);
      },
    );
  });
});
