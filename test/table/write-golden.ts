/** Writes the golden files of `golden.test.ts` (run once by hand: `node --import tsx test/table/write-golden.ts`). */
import { writeFileSync } from 'node:fs';
import { MemoryObjectStore } from '../../lib/store/memory-store.js';
import { appendTable } from '../../lib/table/append.js';
import { MANIFEST_LIST_SCHEMA, manifestEntrySchema } from '../../lib/table/avro.js';
import { metadataKey } from '../../lib/table/paths.js';
import { testConfig, testDeps, WalWriter } from './helpers.js';

const out = (name: string, text: string) =>
  writeFileSync(new URL(`./golden/${name}`, import.meta.url), text);
const store = new MemoryObjectStore();
const config = testConfig(
  '*',
  {},
  {
    orders_eu: {
      partition: 'day',
      columns: [
        { name: 'amount', type: 'decimal(12,2)' },
        { name: 'at', type: 'timestamptz' },
      ],
    },
  },
);
const deps = testDeps(store, config, 7);
const wal = new WalWriter(store, 'orders-eu');
await wal.append(
  [{ text: '{"amount":1.25,"at":"2026-12-01T09:00:00Z"}' }, { key: '"o1"', text: '{"amount":2}' }],
  Date.UTC(2026, 11, 1, 9),
);
await appendTable(deps, 'orders_eu', ['orders-eu']);
out(
  'v1.metadata.json',
  `${Buffer.from((await store.get(metadataKey('orders_eu', 1)))!).toString('utf8')}\n`,
);
out('manifest-entry-day.avsc', `${JSON.stringify(manifestEntrySchema('day'), null, 2)}\n`);
out('manifest-list.avsc', `${JSON.stringify(MANIFEST_LIST_SCHEMA, null, 2)}\n`);
