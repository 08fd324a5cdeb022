/** Writes the golden files of `golden.test.ts` (run once by hand: `node --import tsx test/table/write-golden.ts`). */
import { writeFileSync } from 'node:fs';
import { MANIFEST_LIST_SCHEMA, manifestEntrySchema } from '../../lib/table/avro.js';
import { metadataKey } from '../../lib/table/paths.js';
import { goldenCommit } from './helpers.js';

const out = (name: string, text: string) =>
  writeFileSync(new URL(`./golden/${name}`, import.meta.url), text);
const { store } = await goldenCommit();
out(
  'v1.metadata.json',
  `${Buffer.from((await store.get(metadataKey('orders_eu', 1)))!).toString('utf8')}\n`,
);
out('manifest-entry-day.avsc', `${JSON.stringify(manifestEntrySchema('day'), null, 2)}\n`);
out('manifest-list.avsc', `${JSON.stringify(MANIFEST_LIST_SCHEMA, null, 2)}\n`);
