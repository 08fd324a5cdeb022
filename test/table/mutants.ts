/**
 * Planted bugs in the table's guarantees, in the shape of `test/sim/mutants.ts`
 * (spread `TABLE_MUTANTS` into `MUTANTS` to run them with `npm run mutants`).
 * Each is killed by its tests; the simulation (`params.tables`, V16 in
 * `test/sim/sim-tables.ts`) kills 11 of the 22 within 300 schedules
 * (`npm run mutants -- --only <these> --schedules 300`). It does not reach
 * the others: it never corrupts a table or a manifest, never asks a full
 * verify, (its orphan age being past its stalls) rarely races orphan
 * removal or expiry into a commit, and does not count the files history
 * retention reads.
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
    breaks:
      'K3/W2: a rewrite (compaction, retention) re-applies only while its rewritten files are live',
    edits: [
      {
        file: 'lib/table/rewrite.ts',
        find: 'if (![...rewritten].every((path) => livePaths.has(path))) return CommitTry.stale;',
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
  {
    name: 'table-segment-skips-line-check',
    breaks: 'R2: a table segment reads only if its lines are the ones the manifest records',
    edits: [
      {
        file: 'lib/segment/table-reader.ts',
        find: 'if (seen[name] !== ref[name]) {',
        replace: 'if (false) {',
      },
    ],
    tests: ['test/export/table-segments.test.ts'],
  },
  {
    name: 'table-segment-reads-keyed-rows',
    breaks: 'R1: a table segment holds the keyless rows only',
    edits: [
      {
        file: 'lib/segment/table-reader.ts',
        find: 'if (r.shard !== shard || (r.key !== null && r.key !== undefined)) continue;',
        replace: 'if (r.shard !== shard) continue;',
      },
    ],
    tests: ['test/export/table-segments.test.ts'],
  },
  {
    name: 'table-segment-reads-past-its-range',
    breaks: 'R1: a table segment holds the rows of positions [first, end) only',
    edits: [
      {
        file: 'lib/segment/table-reader.ts',
        find: 'if (position >= ref.first && position < ref.end) rows.push',
        replace: 'if (position >= ref.first) rows.push',
      },
    ],
    tests: ['test/export/table-segments.test.ts'],
  },
  {
    name: 'table-segment-prunes-a-holding-file',
    breaks: 'R1: a file is skipped only when its bounds exclude the shard or the range',
    edits: [
      {
        file: 'lib/segment/table-reader.ts',
        find: 'bounds.position[1] < ref.first ||',
        replace: 'bounds.position[1] <= ref.first ||',
      },
    ],
    tests: ['test/export/table-segments.test.ts'],
  },
  {
    name: 'table-segment-gives-up-on-a-replaced-file',
    breaks: 'R3: a file gone after listing starts the read again from the current snapshot',
    edits: [
      {
        file: 'lib/segment/table-reader.ts',
        find: 'if (!(error instanceof ListedObjectMissingError)) throw error;',
        replace: 'throw error;',
      },
    ],
    tests: ['test/export/table-segments.test.ts'],
  },
  {
    name: 'export-lists-uncommitted-rows-in-the-table',
    breaks: 'only rows below the table high-water become table segments',
    edits: [
      {
        file: 'lib/export/segment-archive.ts',
        find: 'if (position < this.#tableBelow) {',
        replace: 'if (position <= this.#tableBelow) {',
      },
    ],
    tests: ['test/export/table-segments.test.ts'],
  },
  {
    name: 'manifest-v1-lists-a-table-segment',
    breaks: 'manifest rule 6: only a format-2 manifest lists a table segment',
    edits: [
      {
        file: 'lib/manifest/manifest-check.ts',
        find: 'if (this.version < MANIFEST_TABLE_SEGMENTS_VERSION) {',
        replace: 'if (false) {',
      },
    ],
    tests: ['test/manifest/manifest.test.ts'],
  },
  {
    name: 'verify-trusts-table-rows-read-before',
    breaks:
      'a full verify reads the table segments from storage, not from what the process read before',
    edits: [
      {
        file: 'lib/recovery/verify.ts',
        find: '  forgetTableReads(deps.store);',
        replace: '',
      },
    ],
    tests: ['test/export/table-segments.test.ts'],
  },
  {
    name: 'table-job-takes-a-superseded-base-for-corruption',
    breaks:
      'readOrStale: an object a superseded base lists and maintenance removed sends the job back to the newest version',
    edits: [
      {
        file: 'lib/table/commit-loop.ts',
        find: 'if ((now?.version ?? 0) > (base?.version ?? 0)) return stale;',
        replace: '',
      },
    ],
    tests: ['test/table/stale-base.test.ts'],
  },
  {
    name: 'table-job-takes-corruption-for-a-superseded-base',
    breaks: 'readOrStale: an object the current version lists and the store lacks is corruption',
    edits: [
      {
        file: 'lib/table/commit-loop.ts',
        find: 'if ((now?.version ?? 0) > (base?.version ?? 0)) return stale;',
        replace: 'return stale;',
      },
    ],
    tests: ['test/table/stale-base.test.ts'],
  },
  {
    name: 'table-retention-removes-keyed-rows',
    breaks: "H2: a key's change log stays whole in the table",
    edits: [
      {
        file: 'lib/table/retain.ts',
        find: 'return row.key === null && row.position <',
        replace: 'return row.position <',
      },
    ],
    tests: ['test/table/retain.test.ts'],
  },
  {
    name: 'table-retention-removes-at-the-cursor',
    breaks: 'H1: only rows below the historyKeptFrom cursor leave the table',
    edits: [
      {
        file: 'lib/table/retain.ts',
        find: 'row.position < (keptFrom.get(row.shard) ?? 0)',
        replace: 'row.position <= (keptFrom.get(row.shard) ?? 0)',
      },
    ],
    tests: ['test/table/retain.test.ts', 'test/export/table-segments.test.ts'],
  },
  {
    name: 'table-retention-reads-past-the-bounds',
    breaks: 'H3: a file whose bounds exclude every retired row is not read',
    edits: [
      { file: 'lib/table/retain.ts', find: 'if (!mayHold(live, keptFrom)) continue;', replace: '' },
    ],
    tests: ['test/table/retain.test.ts'],
  },
  {
    name: 'table-retention-reads-keyed-only-files',
    breaks: 'H3: a file that counts no row without a key is not read',
    edits: [
      {
        file: 'lib/table/retain.ts',
        find: 'if (keylessRows(live.file.null_value_counts) === 0) return false;',
        replace: '',
      },
    ],
    tests: ['test/table/retain.test.ts'],
  },
  {
    name: 'export-history-cursor-past-an-unreadable-manifest',
    breaks: 'T6: the history cursor stays while a manifest does not verify',
    edits: [
      {
        file: 'lib/export/retention.ts',
        find: 'if (anyInvalid || kept.length === 0) return 0;',
        replace: 'if (kept.length === 0) return 0;',
      },
    ],
    tests: ['test/export/retention.test.ts'],
  },
  {
    name: 'export-history-cursor-takes-the-highest-floor',
    breaks: 'T6: the history cursor is the lowest floor of the kept manifests',
    edits: [
      {
        file: 'lib/export/retention.ts',
        find: 'floor = Math.min(floor, e.manifest?.header.historyFloor ?? 0);',
        replace: 'floor = Math.max(0, e.manifest?.header.historyFloor ?? 0);',
      },
    ],
    tests: ['test/export/retention.test.ts', 'test/export/table-segments.test.ts'],
  },
];
