import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../lib/seeded-random.js';
import { useDynalite } from '../harness.js';
import { type Outcome, runOnBoth, tableContents } from './differential.js';
import { grammarCommands } from './grammar-commands.js';
import { type DynamoSender, MemoryDynamoDB } from './memory-dynamodb.js';

const dynalite = useDynalite();

let tables = 0;

async function createGrammarTable(client: DynamoSender, tableName: string): Promise<void> {
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
    }),
  );
}

function kindOf(outcome: Outcome): string {
  return 'output' in outcome ? 'ok' : outcome.error.name;
}

describe('MemoryDynamoDB expressions', () => {
  describe('send', () => {
    it.each([11, 12, 13])(
      'evaluates seeded conditions, updates, filters and projections exactly as dynalite does (seed %i)',
      async (seed) => {
        const tableName = `grammar-${seed}-${++tables}`;
        const reference = dynalite().client;
        const memory = new MemoryDynamoDB();
        await createGrammarTable(reference, tableName);
        await createGrammarTable(memory, tableName);
        // dynalite's table is CREATING for a moment.
        await new Promise((resolve) => setTimeout(resolve, 50));
        const next = grammarCommands(tableName, seededRandom(seed));
        const kinds = new Map<string, number>();
        for (let step = 0; step < 300; step++) {
          const generated = next();
          const both = await runOnBoth(reference, memory, generated);
          expect({ step, label: generated.label, outcomes: both.subject }).toEqual({
            step,
            label: generated.label,
            outcomes: both.reference,
          });
          for (const outcome of both.reference) {
            kinds.set(kindOf(outcome), (kinds.get(kindOf(outcome)) ?? 0) + 1);
          }
        }
        expect(await tableContents(memory, tableName)).toEqual(
          await tableContents(reference, tableName),
        );
        expect(kinds.get('ok')).toBeGreaterThan(60);
        expect(kinds.get('ConditionalCheckFailedException')).toBeGreaterThan(20);
        expect(kinds.get('ValidationException')).toBeGreaterThan(10);
      },
    );
  });
});
