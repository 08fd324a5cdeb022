/**
 * Planted bugs in the table's guarantees, in the shape of `test/sim/mutants.ts`
 * (spread `TABLE_MUTANTS` into `MUTANTS` to run them with `npm run mutants`).
 * The simulation does not model tables yet: each is killed by its tests.
 */
import type { Mutant } from '../sim/mutants.js';

export const TABLE_MUTANTS: Mutant[] = [
  {
    name: 'table-commit-ignores-lost-race',
    breaks: 'C1: of two committers on one base exactly one commits',
    edits: [
      {
        file: 'lib/table/commit.ts',
        find: "if (result !== 'created') return false;",
        replace: "if (result !== 'created' && false) return false;",
      },
    ],
    tests: ['test/table/crash.test.ts'],
  },
  {
    name: 'table-retry-reapplies-on-moved-high-water',
    breaks: 'A2/A3: an append re-applies only on a base with the high-water it read from',
    edits: [
      {
        file: 'lib/table/append.ts',
        find: '!sameStart(on, ranges, read) ||',
        replace: 'false ||',
      },
    ],
    tests: ['test/table/crash.test.ts'],
  },
  {
    name: 'table-compaction-replaces-gone-files',
    breaks: 'K3: a compaction re-applies only while its replaced files are live',
    edits: [
      {
        file: 'lib/table/compact.ts',
        find: 'if (![...replaced].every((path) => livePaths.has(path))) return CommitTry.stale;',
        replace: '',
      },
    ],
    tests: ['test/table/compact.test.ts'],
  },
  {
    name: 'table-expiry-deletes-kept-files',
    breaks: 'E2: expiry deletes only files no kept snapshot reaches',
    edits: [{ file: 'lib/table/expire.ts', find: 'if (keptKeys.has(key)) continue;', replace: '' }],
    tests: ['test/table/maintenance.test.ts'],
  },
  {
    name: 'table-orphans-ignore-references',
    breaks: 'O2: a referenced file is never an orphan',
    edits: [
      {
        file: 'lib/table/orphans.ts',
        find: 'madeAt > cutoff || referenced.has(key)) continue;',
        replace: 'madeAt > cutoff) continue;',
      },
    ],
    tests: ['test/table/maintenance.test.ts'],
  },
  {
    name: 'table-orphans-ignore-age',
    breaks: 'O2/O3: a file a racing commit is about to reference is never removed',
    edits: [
      {
        file: 'lib/table/orphans.ts',
        find: 'madeAt > cutoff || referenced.has(key)) continue;',
        replace: 'referenced.has(key)) continue;',
      },
    ],
    tests: ['test/table/maintenance.test.ts'],
  },
];
