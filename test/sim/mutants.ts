/**
 * Planted bugs: each one a realistic mistake in a guarantee's code, applied
 * alone by `npm run mutants` (`run-mutants.ts`), which then runs the
 * simulation and the mutant's own tests. A mutant the checker and tests do not
 * kill is a hole in them. Later issues add theirs here.
 */
import { TABLE_MUTANTS } from '../table/mutants.js';

/** One textual change to one file. */
interface Edit {
  file: string;
  find: string;
  replace: string;
}

/** A planted bug. */
export interface Mutant {
  name: string;
  /** The guarantee it breaks. */
  breaks: string;
  edits: Edit[];
  /** Test files that should kill it besides the simulation. */
  tests: string[];
}

export const MUTANTS: Mutant[] = [
  {
    name: 'commit-without-epoch',
    breaks: 'C1: only the holder of the epoch commits',
    edits: [
      {
        file: 'lib/fence/commit.ts',
        find: "const FENCE = 'epoch = :epoch AND walNextPos = :pos';",
        replace: "const FENCE = '(epoch = :epoch OR epoch <> :epoch) AND walNextPos = :pos';",
      },
    ],
    tests: ['test/flush/zombie.test.ts', 'test/fence/commit.test.ts'],
  },
  {
    name: 'adopt-without-content-check',
    breaks: 'I1/H1: an existing object is adopted only if it holds what the memtable holds',
    edits: [
      {
        file: 'lib/flush/flush-shard.ts',
        find: 'const mismatch = existing && contentMismatch(existing, covered);',
        replace: 'const mismatch = existing && undefined;',
      },
    ],
    tests: ['test/flush/divergence.test.ts'],
  },
  {
    name: 'resolve-newest-first',
    breaks: 'append order is dedup order: the oldest pending batch goes first',
    edits: [
      {
        file: 'lib/flush/resolve-pending.ts',
        find: '  const resolved: Resolved = { batches: [], sealed: [], waitingOnSeq: undefined, fenced: false };',
        replace:
          '  found.reverse();\n  const resolved: Resolved = { batches: [], sealed: [], waitingOnSeq: undefined, fenced: false };',
      },
    ],
    tests: ['test/flush/order.test.ts'],
  },
  {
    name: 'take-past-a-fresh-gap',
    breaks:
      'a flush takes a contiguous run: a seq allocated after the claim and not yet written ends it',
    edits: [
      {
        file: 'lib/flush/resolve-pending.ts',
        find: 'next?.seq === expected && bytes < maxBytes;',
        replace: 'next !== undefined && bytes < maxBytes;',
      },
    ],
    tests: ['test/flush/gaps.test.ts'],
  },
  {
    name: 'seal-over-a-batch',
    breaks: 'a void seal never replaces a written batch (conditional on the seq being empty)',
    edits: [
      {
        file: 'lib/memtable/seal-void.ts',
        find: "      Item: item,\n      ConditionExpression: 'attribute_not_exists(pk)',",
        replace: '      Item: item,',
      },
    ],
    tests: ['test/flush/gaps.test.ts'],
  },
  {
    name: 'repeat-answers-a-void',
    breaks: "K6: only the owner's batch at the recorded seq is the ack a repeat gets",
    edits: [
      {
        file: 'lib/put/claim-key.ts',
        find: "  if (head?.kind !== 'rows' || head.putId !== record.owner) return undefined;",
        replace: '  if (head === undefined) return undefined;',
      },
    ],
    tests: ['test/put/takeover-race.test.ts', 'test/put/idempotency.test.ts'],
  },
  {
    name: 'weak-pending-clear',
    breaks: 'step 7: the pending marker is cleared only if no put arrived since',
    edits: [
      {
        file: 'lib/memtable/pending-index.ts',
        find: "      condition: 'nextSeq = :next AND durableSeq = :durable',",
        replace:
          "      condition: '(nextSeq = :next OR nextSeq <> :next) AND durableSeq = :durable',",
      },
    ],
    tests: ['test/flush/pending-marker.test.ts'],
  },
  {
    name: 'drain-ignores-new-puts',
    breaks: 'C5: a commit drains the shard only when no put allocated past its last seq',
    edits: [
      {
        file: 'lib/fence/commit.ts',
        find: "    condition += ' AND nextSeq = :next';",
        replace: "    condition += ' AND (nextSeq = :next OR nextSeq <> :next)';",
      },
    ],
    tests: ['test/fence/commit.test.ts', 'test/put/allocate.test.ts'],
  },
  {
    name: 'oversize-chunks',
    breaks: 'a batch is split under the 400 KB item limit',
    edits: [
      {
        file: 'lib/memtable/batch-codec.ts',
        find: 'export const MAX_CHUNK_BYTES = 350_000;',
        replace: 'export const MAX_CHUNK_BYTES = 500_000;',
      },
    ],
    tests: ['test/put/multi-chunk.test.ts'],
  },
  {
    name: 'drop-continuation-chunks',
    breaks: 'every chunk of a batch is written before its head',
    edits: [
      {
        file: 'lib/memtable/write-batch.ts',
        find: '  for (let part = 1; part < chunks.length; part++) {',
        replace: '  for (let part = 1; part < Math.min(chunks.length, 1); part++) {',
      },
    ],
    tests: ['test/put/multi-chunk.test.ts'],
  },
  {
    name: 'retire-at-watermark',
    breaks: 'T2: WAL objects the second newest export needs for a fallback are kept',
    edits: [
      {
        file: 'lib/export/retention.ts',
        find: '  const fallbackFloor = remaining.length >= 2 ? remaining.at(-2)!.ref.coveredPosition : 0;',
        replace:
          '  const fallbackFloor = remaining.length >= 1 ? remaining.at(-1)!.ref.coveredPosition : 0;',
      },
    ],
    tests: ['test/export/retention.test.ts'],
  },
  {
    name: 'retire-all-but-newest',
    breaks: 'T1: the newest two valid exports always stay, with what they list',
    edits: [
      {
        file: 'lib/export/retention.ts',
        find: '  const newestTwo = new Set(atOrBelow.slice(-2));',
        replace: '  const newestTwo = new Set(atOrBelow.slice(-1));',
      },
    ],
    tests: ['test/export/retention.test.ts'],
  },
  {
    name: 'manifest-forgets-older-segments',
    breaks: "an export lists the base manifest's segments again (keyless history is never lost)",
    edits: [
      {
        file: 'lib/export/fold-export.ts',
        find: '    segments = [...segments, ...archive.refs];',
        replace: '    segments = [...archive.refs];',
      },
    ],
    tests: ['test/export/export-shard.test.ts'],
  },
  {
    name: 'delta-drops-deletes',
    breaks: 'a delete in the WAL tail removes its key from the snapshot',
    edits: [
      {
        file: 'lib/export/keyed-delta.ts',
        find: '    const key = row.key!;\n    const text = row.delete ? undefined : row.text!;',
        replace:
          '    if (row.delete) return;\n    const key = row.key!;\n    const text = row.text;',
      },
    ],
    tests: ['test/export/export-shard.test.ts', 'test/recovery/equivalence.test.ts'],
  },
  {
    name: 'compaction-drops-held',
    breaks: "a compacting export merges the fold's held keyed changes into the new base",
    edits: [
      {
        file: 'lib/export/fold-export.ts',
        find: '        delta.takeHeld(),',
        replace: '        (delta.takeHeld(), []),',
      },
    ],
    tests: ['test/export/export-shard.test.ts', 'test/recovery/equivalence.test.ts'],
  },
  {
    name: 'held-merged-oldest',
    breaks: "a fold's held changes apply after every stored part when compacted",
    edits: [
      {
        file: 'lib/snapshot/reader.ts',
        find: '  if (newest) cursors.push(new HeldCursor(newest));',
        replace: '  if (newest) cursors.unshift(new HeldCursor(newest));',
      },
    ],
    tests: ['test/export/export-shard.test.ts', 'test/recovery/equivalence.test.ts'],
  },
  {
    name: 'merge-keeps-oldest-part',
    breaks: "snapshot parts apply in order: a later part's row for a key wins",
    edits: [
      {
        file: 'lib/snapshot/reader.ts',
        find: '          winner = cursor.head;',
        replace: '          winner ??= cursor.head;',
      },
    ],
    tests: ['test/export/export-shard.test.ts', 'test/snapshot/snapshot.test.ts'],
  },
  {
    name: 'history-floor-not-raised',
    breaks:
      "segments dropped by history retention raise the manifest's floor (a documented floor, not a gap)",
    edits: [
      {
        file: 'lib/export/fold-export.ts',
        find: '        historyFloor = Math.max(historyFloor, segments[dropped]!.end);',
        replace: '',
      },
    ],
    tests: ['test/export/retention.test.ts'],
  },
  {
    name: 'rebuild-fence-unregistered',
    breaks: 'G1: a shard record a rebuild creates (after a table loss) is in the registry',
    edits: [
      {
        file: 'lib/memtable/reset-cursors.ts',
        find: 'poisonedAtMs = :now, registryPk = :registryPk, registryShard = :registryShard, pendingPk',
        replace: 'poisonedAtMs = :now, pendingPk',
      },
      {
        // The pending index still names the shard; only the registry's partition is gone.
        file: 'lib/memtable/reset-cursors.ts',
        find: '      ...registryEntry(shard).values,\n',
        replace: "      ':registryShard': registryEntry(shard).values[':registryShard']!,\n",
      },
    ],
    tests: ['test/export/registry.test.ts'],
  },
  {
    name: 'durable-off-by-one',
    breaks: 'durable:true only once the covering append is committed',
    edits: [
      {
        file: 'lib/put/durable-wait.ts',
        find: 'record.durableSeq >= input.seq;',
        replace: 'record.durableSeq >= input.seq - 1;',
      },
    ],
    tests: ['test/put/durability.test.ts'],
  },
  {
    name: 'rebuild-deletes-voids',
    breaks: 'L4: a void stays a tombstone for its lifetime, rebuild included',
    // The first version's bug: reconcile walked every item from seq 1 and deleted the voids it met.
    edits: [
      {
        file: 'lib/recovery/reconcile-batches.ts',
        find: '  let heads = await listBatchHeads(deps.table, shard, trusted + 1);',
        replace: '  let heads = await listBatchHeads(deps.table, shard, 1);',
      },
      {
        file: 'lib/recovery/reconcile-batches.ts',
        find: "    if (head.kind === 'void') continue;",
        replace:
          "    if (head.kind === 'void') {\n      await (await import('../memtable/batch-delete.js')).deleteBatches(deps.table, shard, head.itemKeys);\n      continue;\n    }",
      },
    ],
    tests: ['test/recovery/void-tombstone.test.ts'],
  },
  {
    name: 'release-key-on-any-error',
    breaks: 'K4: a key is released only when its batch provably did not land',
    edits: [
      {
        file: 'lib/put/put-rows.ts',
        find: '    const provablyNotLanded = error instanceof GapSealedError || error instanceof SeqTakenError;',
        replace: '    const provablyNotLanded = true;',
      },
    ],
    tests: ['test/put/idempotency.test.ts'],
  },
  {
    name: 'release-without-owner',
    breaks: 'K2: only the owner releases its reservation',
    edits: [
      {
        file: 'lib/memtable/idempotency.ts',
        find: "      ConditionExpression: '#state = :pendingState AND #owner = :owner',",
        // Still names every attribute and value, so DynamoDB takes it: only the ownership check is gone.
        replace:
          "      ConditionExpression: 'attribute_exists(pk) OR (#state = :pendingState AND #owner = :owner)',",
      },
    ],
    tests: ['test/put/idempotency.test.ts', 'test/memtable/idempotency.test.ts'],
  },
  {
    name: 'allocate-without-token',
    breaks: 'A1: a re-sent allocation takes no second seq',
    edits: [
      {
        file: 'lib/memtable/allocate.ts',
        find: ' AND (attribute_not_exists(lastAllocToken) OR lastAllocToken <> :token)',
        replace: '',
      },
    ],
    tests: ['test/put/allocate.test.ts'],
  },
  {
    name: 'flush-deletes-void-heads',
    breaks: 'H2 / L4: a void outlives the commit that covers it',
    edits: [
      {
        file: 'lib/flush/flush-shard.ts',
        find: '  const more = hasPendingBatches(committed.record);\n',
        replace:
          "  const more = hasPendingBatches(committed.record);\n  await (await import('../memtable/batch-delete.js')).deleteBatches(deps.table, shard, covered.filter((b) => b.kind === 'void').map((b) => 'batch#' + String(b.seq).padStart(20, '0')));\n",
      },
    ],
    tests: ['test/flush/gaps.test.ts', 'test/recovery/void-tombstone.test.ts'],
  },
  {
    name: 'write-takes-any-batch-as-its-own',
    breaks: 'a put acks only its own batch: a seq a rolled-back record handed out again is refused',
    edits: [
      {
        file: 'lib/memtable/write-batch.ts',
        find: "    if (found?.kind === 'rows' && found.putId === putId) return;",
        replace: "    if (found?.kind === 'rows') return;",
      },
    ],
    tests: ['test/flush/divergence.test.ts', 'test/put/write-outcome.test.ts'],
  },
  {
    name: 'takeover-without-settling',
    breaks: 'K3: a takeover settles the recorded seq before buffering again',
    edits: [
      {
        file: 'lib/put/claim-key.ts',
        find: '    const outcome = await settleRecordedSeq(\n      table,\n      input.shard,\n      record.seq,\n      { owner: record.owner, key: input.key, askableUntilMs: record.expiresAtMs },\n      ctx.now,\n    );',
        replace: '    const outcome = { landed: false as const, rows: undefined };',
      },
    ],
    tests: ['test/put/idempotency.test.ts'],
  },
  {
    name: 'takeover-misreads-flushed-seq',
    breaks: 'K3 with L4: an emptied seq at or below durableSeq held the batch',
    edits: [
      {
        file: 'lib/put/settle-seq.ts',
        find: "  if (durable) {\n    return now() <= put.askableUntilMs\n      ? { landed: true, rows: undefined }\n      : { landed: 'past-window' };\n  }\n",
        replace: '',
      },
    ],
    tests: ['test/put/idempotency.test.ts'],
  },
  {
    name: 'settle-ignores-key-window',
    breaks: 'K3 with L4: an emptied durable seq reads as landed only within the key window',
    edits: [
      {
        file: 'lib/put/settle-seq.ts',
        find: '    return now() <= put.askableUntilMs',
        replace: '    return true',
      },
    ],
    tests: ['test/put/idempotency.test.ts'],
  },
  {
    name: 'claim-after-deadline',
    breaks: 'L1 with L4: no reservation is created or taken over after the put deadline',
    edits: [
      {
        file: 'lib/put/claim-key.ts',
        find: '    if (nowMs >= ctx.deadlineAtMs) throw new PutDeadlineError(input.shard, input.seq);\n',
        replace: '',
      },
    ],
    tests: ['test/put/idempotency.test.ts'],
  },
  {
    name: 'own-reservation-taken-as-another',
    breaks: "K1: a create whose response was lost finds the put's own reservation",
    edits: [
      {
        file: 'lib/put/claim-key.ts',
        find: "    if (record.owner === input.owner) return { kind: 'ours' }; // our create; its response was lost\n",
        replace: '',
      },
    ],
    tests: ['test/put/idempotency.test.ts'],
  },
  {
    name: 'release-bytes-of-rows-only',
    breaks: 'A2: a commit releases every charge through its last batch',
    edits: [
      {
        file: 'lib/flush/flush-shard.ts',
        find: '  for (const batch of covered) if (batch.chargeEnd !== undefined) through = batch.chargeEnd;',
        replace:
          "  for (const batch of covered) if (batch.kind === 'rows' && batch.chargeEnd !== undefined) through = batch.chargeEnd - 1;",
      },
    ],
    tests: ['test/put/allocate.test.ts'],
  },
  {
    name: 'settle-without-seal',
    breaks: 'a put that gives up makes its seq void before saying nothing was stored',
    edits: [
      {
        file: 'lib/put/settle-seq.ts',
        find: "  if ((await sealVoid(table, shard, seq, nowMs, { chargeEnd: own.chargeEnd })) === 'sealed') {\n    return { landed: false };\n  }",
        replace: '  if (shard !== "") return { landed: false };',
      },
    ],
    tests: ['test/put/deadline.test.ts'],
  },
  {
    name: 'no-stall-refusal',
    breaks: 'L5 / A3: a shard whose pending data waits too long takes no new put',
    edits: [
      {
        file: 'lib/memtable/allocate.ts',
        find: ' AND (attribute_not_exists(pendingSinceMs) OR pendingSinceMs > :stalledBefore)',
        // Keeps :stalledBefore in use, so DynamoDB takes it: only the refusal is gone.
        replace:
          ' AND (attribute_not_exists(pendingSinceMs) OR pendingSinceMs > :stalledBefore OR attribute_exists(pk))',
      },
    ],
    tests: ['test/put/stall.test.ts'],
  },
  {
    name: 'no-expiry-extension',
    breaks: 'L5: pending items near their expiry get a new one, poisoned shards included',
    edits: [
      {
        file: 'lib/recovery/verify-heal.ts',
        find: '  const extended = await extendPendingExpiry(deps.table, record, nowMs);',
        replace: '  const extended = 0;',
      },
    ],
    tests: ['test/recovery/verify.test.ts'],
  },
  {
    name: 'void-lives-a-tenth',
    breaks: 'L4: a void lives longer than any put or reservation that could ask about it',
    edits: [
      {
        file: 'lib/memtable/seal-void.ts',
        find: '    expiresAt: expiresAt(nowMs, lifetimesOf(table).voidMs),',
        replace: '    expiresAt: expiresAt(nowMs, lifetimesOf(table).voidMs / 10),',
      },
    ],
    tests: ['test/recovery/void-tombstone.test.ts'],
  },
  {
    name: 'takeover-reads-head-before-record',
    breaks: 'K3: an empty seq reads as landed only if it was durable before the head was read',
    edits: [
      {
        file: 'lib/put/settle-seq.ts',
        find: '  const record = await readShardRecord(table, shard);\n  const durable = record !== undefined && seq <= record.durableSeq;\n  const head = await readBatchHead(table, shard, seq);',
        replace:
          '  const head = await readBatchHead(table, shard, seq);\n  const record = await readShardRecord(table, shard);\n  const durable = record !== undefined && seq <= record.durableSeq;',
      },
    ],
    tests: ['test/put/takeover-race.test.ts'],
  },
  {
    name: 'spill-unchecked',
    breaks: 'S2: a spilled payload is checked against its batch item before it is decoded',
    edits: [
      {
        file: 'lib/memtable/spill.ts',
        find: '  if (payload.length !== ref.bytes || sha256Hex(payload) !== ref.sha256) {',
        replace: '  if (payload.length !== ref.bytes) {',
      },
    ],
    tests: ['test/put/spill.test.ts'],
  },
  {
    name: 'spill-failure-ignored',
    breaks: 'S1: the batch head, its commit point, is written only after its payload object',
    edits: [
      {
        file: 'lib/memtable/write-batch.ts',
        find: '    spilled = await writeSpill(spill.store(), shard, seq, putId, input.batch.compressed);',
        replace:
          '    spilled = await writeSpill(spill.store(), shard, seq, putId, input.batch.compressed).catch(() => ({ key: spillKey(shard, seq, putId), bytes: input.batch.compressed.length, sha256: "" }));',
      },
      {
        file: 'lib/memtable/write-batch.ts',
        find: "import { type SpillRef, spills, writeSpill } from './spill.js';",
        replace:
          "import { spillKey } from '../paths.js';\nimport { type SpillRef, spills, writeSpill } from './spill.js';",
      },
    ],
    tests: ['test/put/spill.test.ts'],
  },
  {
    name: 'quarantine-keeps-spill-pointer',
    breaks: 'S4: a quarantined copy carries its payload, not a pointer the lifecycle will break',
    edits: [
      {
        file: 'lib/memtable/quarantine.ts',
        find: '  if (!head || spillRefOf(head) === undefined) return items;',
        replace: '  if (head || spillRefOf(head!) === undefined) return items;',
      },
    ],
    tests: ['test/put/spill.test.ts'],
  },
  {
    name: 'no-respill',
    breaks: "S3: a stalled shard's pending payload is copied before the lifecycle rule removes it",
    edits: [
      {
        file: 'lib/recovery/verify-heal.ts',
        find: '  const copied = await respillAged(deps.table, record, nowMs);',
        replace: '  const copied = 0 as number;',
      },
    ],
    tests: ['test/recovery/verify.test.ts'],
  },
  {
    name: 'reset-applies-twice',
    breaks: "R5: a rebuild's cursor reset re-sent after a lost response does not apply again",
    edits: [
      {
        file: 'lib/memtable/reset-cursors.ts',
        find: "? 'attribute_not_exists(generation)' : 'generation = :generation'",
        replace: "? 'epoch = :epoch' : '(generation = :generation OR generation <> :generation)'",
      },
    ],
    tests: ['test/recovery/reset-retry.test.ts'],
  },
  {
    name: 'reset-keeps-void-charges',
    breaks: 'R6: a rebuild that leaves nothing pending leaves nothing buffered',
    edits: [
      {
        file: 'lib/memtable/reset-cursors.ts',
        find: "      : ['releasedBytes = if_not_exists(chargedBytes, :zeroBytes)', 'bufferedBytes = :zeroBytes']),",
        replace:
          "      : ['releasedBytes = if_not_exists(releasedBytes, :zeroBytes)', 'bufferedBytes = if_not_exists(chargedBytes, :zeroBytes) - if_not_exists(releasedBytes, :zeroBytes)']),",
      },
    ],
    tests: ['test/recovery/rebuild-charges.test.ts'],
  },
  // Issue 20: the areas an outside set of planted bugs found holes in (retention's orphan sweep,
  // pending batches' expiry and the stall refusal, quarantine, tail at an export boundary, the
  // local gateway's body limit), and the areas the simulation models since (FIFO groups).
  {
    name: 'orphan-sweep-takes-its-bound',
    breaks:
      'T3: orphans are swept strictly below O; a segment starting at O may be an in-flight export',
    edits: [
      {
        file: 'lib/export/retention.ts',
        find: '      if (first >= sweepBelow) break;',
        replace: '      if (first > sweepBelow) break;',
      },
    ],
    tests: ['test/export/orphan-sweep.test.ts', 'test/export/retention.test.ts'],
  },
  {
    name: 'orphan-sweep-below-newest',
    breaks:
      'T3: the sweep bound is the newest manifest older than the export retention, not the newest',
    edits: [
      {
        file: 'lib/export/retention.ts',
        find: '  const old = validManifests.filter((e) => e.createdAtMs <= orphanCutoff).at(-1);',
        replace: '  const old = validManifests.at(-1);',
      },
    ],
    tests: ['test/export/orphan-sweep.test.ts', 'test/export/retention.test.ts'],
  },
  {
    name: 'orphan-parts-by-first-position',
    breaks: 'T3: a part is an orphan to sweep only when its whole range lies below O',
    edits: [
      {
        file: 'lib/export/retention.ts',
        find: '      if (!range || range.to > sweepBelow || referenced.has(key)) continue;',
        replace: '      if (!range || range.from > sweepBelow || referenced.has(key)) continue;',
      },
    ],
    tests: ['test/export/orphan-sweep.test.ts', 'test/export/retention.test.ts'],
  },
  {
    name: 'orphan-cursor-skips-one',
    breaks: 'T3: the sweep lists from its cursor on, the segment at the cursor included',
    edits: [
      {
        file: 'lib/export/retention.ts',
        find: '      cursors.orphansSweptBelow > 0 ? segmentKey(shard, cursors.orphansSweptBelow - 1) : undefined;',
        replace:
          '      cursors.orphansSweptBelow > 0 ? segmentKey(shard, cursors.orphansSweptBelow) : undefined;',
      },
    ],
    tests: ['test/export/orphan-sweep.test.ts', 'test/export/retention.test.ts'],
  },
  {
    name: 'export-retention-from-wal-retention',
    breaks: 'T1: exports younger than the export retention (not the WAL retention) are kept',
    edits: [
      {
        file: 'lib/export/retention.ts',
        find: '  const exportCutoff = nowMs - (deps.exportRetentionMs ?? deps.walRetentionMs);',
        replace: '  const exportCutoff = nowMs - deps.walRetentionMs;',
      },
    ],
    tests: ['test/export/orphan-sweep.test.ts', 'test/export/retention.test.ts'],
  },
  {
    name: 'export-without-deadline',
    breaks:
      'D1: an export that ran past its deadline writes no manifest (the sweep may have its parts)',
    edits: [
      {
        file: 'lib/export/export-shard.ts',
        find: '    const late = pastDeadline(deps, started);',
        replace: '    const late = pastDeadline(deps, deps.now());',
      },
    ],
    tests: ['test/export/export-deadline.test.ts'],
  },
  {
    name: 'export-deadline-inclusive',
    breaks: 'D1: an export that ran exactly its deadline still writes its manifest',
    edits: [
      {
        file: 'lib/export/deadline.ts',
        find: '  if (ranMs <= deadlineMs) return undefined;',
        replace: '  if (ranMs < deadlineMs) return undefined;',
      },
    ],
    tests: ['test/export/export-deadline.test.ts'],
  },
  {
    name: 'export-manifest-unconfirmed',
    breaks:
      'D3: a manifest whose write returned past the deadline is deleted again when an object it names is gone',
    edits: [
      {
        file: 'lib/export/export-shard.ts',
        find: '      if (missing.length > 0) {',
        replace: '      if (missing.length > 1) {',
      },
    ],
    tests: ['test/export/export-deadline.test.ts'],
  },
  {
    name: 'orphan-age-is-the-retention',
    breaks:
      'D2: with a retention below 2 s + skew, the sweep waits twice the deadline plus the skew',
    edits: [
      {
        file: 'lib/export/deadline.ts',
        find: '  return Math.max(retentionMs, 2 * exportDeadlineMs(deps) + (deps.clockSkewMs ?? 0));',
        replace: '  return retentionMs;',
      },
    ],
    tests: ['test/export/export-deadline.test.ts'],
  },
  // D4: a slow export's base stays until the export after it is older than A.
  {
    name: 'base-retired-while-a-slow-export-may-name-it',
    breaks: 'D4/T1: an export stays while the one after it is younger than A',
    edits: [{ file: 'lib/export/retention.ts', find: '    mayBeBase(e) ||\n', replace: '' }],
    tests: ['test/export/slow-export-base.test.ts', 'test/export/retention.test.ts'],
  },
  {
    name: 'base-kept-by-its-own-age',
    breaks: "D4/T1: the age that frees an export is its successor's, not its own",
    edits: [
      {
        file: 'lib/export/retention.ts',
        find: '    return next === undefined || next.createdAtMs > orphanCutoff;',
        replace: '    return next === undefined || e.createdAtMs > orphanCutoff;',
      },
    ],
    tests: ['test/export/slow-export-base.test.ts', 'test/export/retention.test.ts'],
  },
  {
    name: 'base-successor-age-inclusive',
    breaks: 'D4/T1: an export whose successor is exactly A old may go',
    edits: [
      {
        file: 'lib/export/retention.ts',
        find: '    return next === undefined || next.createdAtMs > orphanCutoff;',
        replace: '    return next === undefined || next.createdAtMs >= orphanCutoff;',
      },
    ],
    tests: ['test/export/slow-export-base.test.ts', 'test/export/retention.test.ts'],
  },
  {
    name: 'base-successor-is-the-predecessor',
    breaks: 'D4/T1: the export that frees an export is the next one above it',
    edits: [
      {
        file: 'lib/export/retention.ts',
        find: '  const successor = new Map(weighed.map((e, i) => [e, weighed[i + 1]]));',
        replace: '  const successor = new Map(weighed.map((e, i) => [e, weighed[i - 1]]));',
      },
    ],
    tests: ['test/export/slow-export-base.test.ts', 'test/export/retention.test.ts'],
  },
  {
    name: 'base-successor-waits-the-retention',
    breaks: 'D4/T1: with a retention below 2 s + skew, the successor must be A old, not R',
    edits: [
      {
        file: 'lib/export/retention.ts',
        find: '    return next === undefined || next.createdAtMs > orphanCutoff;',
        replace: '    return next === undefined || next.createdAtMs > exportCutoff;',
      },
    ],
    tests: ['test/export/slow-export-base.test.ts', 'test/export/retention.test.ts'],
  },
  {
    name: 'confirm-skips-the-base',
    breaks: "D3/D4: a late manifest's confirmation covers its base's parts too",
    edits: [
      {
        file: 'lib/export/confirm-manifest.ts',
        find: '  const parts = manifest.parts.map((part) => snapshotPartKey(shard, part));',
        replace:
          '  const parts = manifest.parts\n    .filter((part) => part.to > (manifest.header.previousExport ?? 0))\n    .map((part) => snapshotPartKey(shard, part));',
      },
    ],
    tests: ['test/export/slow-export-base.test.ts', 'test/export/export-deadline.test.ts'],
  },
  {
    name: 'history-cutoff-forward',
    breaks:
      'T4: history retention drops segments older than the retention, counted back from the export',
    edits: [
      {
        file: 'lib/export/fold-export.ts',
        find: '      const cutoff = createdAtMs - input.historyRetentionMs;',
        replace: '      const cutoff = createdAtMs + input.historyRetentionMs;',
      },
    ],
    tests: ['test/export/retention.test.ts'],
  },
  {
    name: 'renew-only-the-expired',
    breaks: 'L5: pending items are renewed while half their lifetime is left, not once it ran out',
    edits: [
      {
        file: 'lib/memtable/batch-expiry.ts',
        find: '  const renewBeforeSeconds = (nowMs + batchMs / 2) / 1000;',
        replace: '  const renewBeforeSeconds = (nowMs - batchMs / 2) / 1000;',
      },
    ],
    tests: ['test/recovery/verify.test.ts'],
  },
  {
    name: 'renew-skips-oldest-pending',
    breaks: 'L5: the renewal starts at the first pending seq, durableSeq + 1',
    edits: [
      {
        file: 'lib/memtable/batch-expiry.ts',
        find: '  const fromSeq = record.durableSeq + 1;\n  const toSeq = record.nextSeq - 1;\n  if (toSeq < fromSeq) return 0;\n  const { batchMs }',
        replace:
          '  const fromSeq = record.durableSeq + 2;\n  const toSeq = record.nextSeq - 1;\n  if (toSeq < fromSeq) return 0;\n  const { batchMs }',
      },
    ],
    tests: ['test/recovery/verify.test.ts'],
  },
  {
    name: 'renew-heads-not-chunks',
    breaks: "L5: a multi-chunk batch's continuation chunks are renewed with its head",
    edits: [
      {
        file: 'lib/memtable/batch-expiry.ts',
        find: "    batchesFrom(fromSeq),\n    'Query pending batch expiry',",
        replace:
          "    { lo: batchesFrom(fromSeq).lo, hi: batchesFrom(fromSeq).lo.slice(0, -20) + String(toSeq).padStart(20, '0') },\n    'Query pending batch expiry',",
      },
    ],
    tests: ['test/put/pending-expiry.test.ts', 'test/recovery/verify.test.ts'],
  },
  {
    name: 'renew-to-half-lifetime',
    breaks: 'L5: a renewed item gets a whole batch lifetime from now',
    edits: [
      {
        file: 'lib/memtable/batch-expiry.ts',
        find: "        values: { ':expires': expiresAt(nowMs, batchMs) },",
        replace: "        values: { ':expires': expiresAt(nowMs, batchMs / 4) },",
      },
    ],
    tests: ['test/recovery/verify.test.ts'],
  },
  {
    name: 'stall-refusal-at-expiry',
    breaks: 'L5 / A3: the stall refusal comes at half the batch lifetime, far before any expiry',
    edits: [
      {
        file: 'lib/liveness.ts',
        find: '  return Math.floor(batchExpiryMs(settings) / 2);',
        replace: '  return Math.floor(batchExpiryMs(settings));',
      },
    ],
    tests: ['test/put/pending-expiry.test.ts', 'test/put/stall.test.ts'],
  },
  {
    name: 'chunks-expire-with-voids',
    breaks: "L5: a batch's chunks live as long as its head (the batch lifetime)",
    edits: [
      {
        file: 'lib/memtable/write-batch.ts',
        find: '        Item: chunkItem({ shard, seq, part, data: chunks[part]!, expiresAt: expires }),',
        replace:
          '        Item: chunkItem({\n          shard,\n          seq,\n          part,\n          data: chunks[part]!,\n          expiresAt: expiresAt(input.nowMs, lifetimesOf(table).batchMs / 2),\n        }),',
      },
    ],
    tests: ['test/put/pending-expiry.test.ts', 'test/put/multi-chunk.test.ts'],
  },
  {
    name: 'quarantine-delete-before-copy',
    breaks:
      'a quarantined batch is copied before its original is deleted (a crash between loses nothing)',
    edits: [
      {
        file: 'lib/memtable/quarantine.ts',
        find: '  const headSk = rejectedSk(input.generation, input.seq);\n',
        replace:
          "  const headSk = rejectedSk(input.generation, input.seq);\n  await deleteBatches(table, shard, items.map((item) => str(item, 'sk')!));\n",
      },
    ],
    tests: ['test/recovery/quarantine.test.ts'],
  },
  {
    name: 'quarantine-copy-keeps-ttl',
    breaks: 'a quarantined copy has no TTL: it stays until an operator re-put what should be kept',
    edits: [
      {
        file: 'lib/memtable/quarantine.ts',
        find: '    const { expiresAt: _expires, ...rest } = item;',
        replace: '    const { ...rest } = item;',
      },
    ],
    tests: ['test/recovery/quarantine.test.ts'],
  },
  {
    name: 'quarantine-head-only',
    breaks: 'a quarantined multi-chunk batch keeps every chunk',
    edits: [
      {
        file: 'lib/memtable/quarantine.ts',
        find: '  const range = batchRange(input.seq, input.seq);',
        replace: '  const range = { lo: batchSk(input.seq), hi: batchSk(input.seq) };',
      },
    ],
    tests: ['test/recovery/quarantine.test.ts'],
  },
  {
    name: 'reconcile-rejects-at-proven-seq',
    breaks: 'rebuild: an item above the proven seq is pending, not compared with S3',
    edits: [
      {
        file: 'lib/recovery/reconcile-batches.ts',
        find: '    if (head.seq > provenSeq) {',
        replace: '    if (head.seq > provenSeq + 1) {',
      },
    ],
    tests: ['test/recovery/divergence.test.ts', 'test/recovery/quarantine.test.ts'],
  },
  {
    name: 'tail-boundary-seq-from-wal',
    breaks: "tail: a start at the export's last seq reads that seq's rows from the segments",
    edits: [
      {
        file: 'lib/client/reader/tail-start.ts',
        find: '  if (manifest && fromSeq <= cursor.lastSeq) {',
        replace: '  if (manifest && fromSeq < cursor.lastSeq) {',
      },
    ],
    tests: ['test/client/tail.test.ts'],
  },
  {
    name: 'tail-wal-skips-from-seq',
    breaks: 'tail: the rows of the start seq itself are yielded',
    edits: [
      {
        file: 'lib/client/reader/tail-shard.ts',
        find: '    return row.seq >= this.#fromSeq;',
        replace: '    return row.seq > this.#fromSeq;',
      },
    ],
    tests: ['test/client/tail.test.ts'],
  },
  {
    name: 'tail-seek-past-boundary',
    breaks: 'tail: a start past the export seeks the WAL object holding the seq, not the one after',
    edits: [
      {
        file: 'lib/client/reader/tail-start.ts',
        find: '  const cursor = { lastSeq: found.firstSeq - 1, nextOffset: found.firstRowOffset };\n  return start(found.position, cursor, from);',
        replace:
          '  const cursor = { lastSeq: found.lastSeq, nextOffset: found.firstRowOffset + found.rowCount };\n  return start(found.position + 1, cursor, from);',
      },
    ],
    tests: ['test/client/tail.test.ts'],
  },
  {
    name: 'tail-retired-segments-by-first',
    breaks: 'tail: a retired position is read from every segment that ends after it',
    edits: [
      {
        file: 'lib/client/reader/tail-shard.ts',
        find: '      const refs = segments.filter((ref) => ref.end > from);',
        replace: '      const refs = segments.filter((ref) => ref.first >= from);',
      },
    ],
    tests: ['test/client/tail-follow.test.ts', 'test/client/tail.test.ts'],
  },
  {
    name: 'tail-segment-keeps-below-from',
    breaks: 'tail: rows of a segment below the start seq are not yielded',
    edits: [
      {
        file: 'lib/client/reader/segment-rows.ts',
        find: '      if (row.seq >= fromSeq) rows.push(row);',
        replace: '      if (row.seq >= fromSeq - 1) rows.push(row);',
      },
    ],
    tests: ['test/client/tail.test.ts'],
  },
  {
    name: 'body-limit-after-stream',
    breaks: "local gateway: a chunked body's limit is checked while it streams in, not after",
    edits: [
      {
        file: 'lib/local/read-body.ts',
        find: "    total += chunk.length;\n    if (total > limitBytes) {\n      request.resume();\n      return { status: 'too-large', limitBytes, gotBytes: total, declared: false };\n    }\n    chunks.push(chunk);\n  }",
        replace:
          "    total += chunk.length;\n    chunks.push(chunk);\n  }\n  if (total > limitBytes) {\n    return { status: 'too-large', limitBytes, gotBytes: total, declared: false };\n  }",
      },
    ],
    tests: ['test/local/read-body.test.ts'],
  },
  {
    name: 'body-limit-off-by-one',
    breaks: 'local gateway: a chunked body of exactly the limit is taken',
    edits: [
      {
        file: 'lib/local/read-body.ts',
        find: '    if (total > limitBytes) {\n      request.resume();',
        replace: '    if (total >= limitBytes) {\n      request.resume();',
      },
    ],
    tests: ['test/local/read-body.test.ts'],
  },
  {
    name: 'fifo-group-not-skipped',
    breaks: 'F1: a FIFO message never lands ahead of a failed message of its group',
    edits: [
      {
        file: 'lib/sqs/put-messages.ts',
        find: '          skipGroupOnError: true,',
        replace: '          skipGroupOnError: false,',
      },
    ],
    tests: ['test/sqs/fifo.test.ts'],
  },
  {
    name: 'hold-back-doubles-from-the-first',
    breaks: 'the first hold-back is 10 s, doubling from there',
    edits: [
      {
        file: 'lib/sqs/hold-back.ts',
        find: '  return Math.min(HOLD_BACK.firstSeconds * 2 ** (n - 1), HOLD_BACK.maxSeconds);',
        replace: '  return Math.min(HOLD_BACK.firstSeconds * 2 ** n, HOLD_BACK.maxSeconds);',
      },
    ],
    tests: ['test/sqs/hold-back.test.ts'],
  },
  {
    name: 'client-retries-one-too-few',
    breaks: 'the client makes maxAttempts requests before it gives up',
    edits: [
      {
        file: 'lib/client/retry.ts',
        find: '      if (!error.retryable || attemptNumber >= options.maxAttempts || signal?.aborted) throw error;',
        replace:
          '      if (!error.retryable || attemptNumber + 1 >= options.maxAttempts || signal?.aborted) throw error;',
      },
    ],
    tests: ['test/client/http-client.test.ts'],
  },
  {
    name: 'client-ignores-retry-after',
    breaks: "the client waits at least the service's Retry-After before retrying",
    edits: [
      {
        file: 'lib/client/retry.ts',
        find: '  if (error.retryAfterMs !== undefined) {',
        replace: '  if (error.retryAfterMs === 0) {',
      },
    ],
    tests: ['test/client/http-client.test.ts'],
  },
  {
    name: 'waiter-survives-rebuild',
    breaks: 'a durable waiter whose shard was rebuilt meanwhile never answers durable: true',
    edits: [
      {
        file: 'lib/put/durable-wait.ts',
        find: '    if (record && record.generation !== generation) {',
        replace: '    if (record && record.generation < generation!) {',
      },
    ],
    tests: ['test/put/durable-wait-rebuild.test.ts', 'test/put/durability.test.ts'],
  },
  {
    name: 'rollback-clears-poison',
    breaks: "a rebuild that stops after its fence restores the shard's poison as it was",
    edits: [
      {
        file: 'lib/recovery/rebuild.ts',
        find: 'poisonAfterStop: (stop) => (underRebuild ? stoppedPoison(shard, stop) : before?.poison),',
        replace:
          'poisonAfterStop: (stop) => (underRebuild ? stoppedPoison(shard, stop) : undefined),',
      },
    ],
    tests: ['test/recovery/rebuild-rollback.test.ts', 'test/recovery/divergence.test.ts'],
  },
  {
    name: 'reconcile-lost-last-unsealed',
    breaks: 'rule 5: every lost seq a rebuild reports is sealed void, the last one included',
    edits: [
      {
        file: 'lib/recovery/reconcile-batches.ts',
        find: '    for (let seq = fromSeq; seq <= toSeq; seq++) {\n      if (!present.has(seq))',
        replace: '    for (let seq = fromSeq; seq < toSeq; seq++) {\n      if (!present.has(seq))',
      },
    ],
    tests: ['test/recovery/divergence.test.ts'],
  },
  {
    name: 'claim-lost-response-refused',
    breaks: 'F5: a claim whose response was lost is still taken, not left leased and unflushed',
    edits: [
      {
        file: 'lib/fence/claim.ts',
        find: '    record.leaseExpiresAtMs === expiresAtMs;',
        replace: '    record.leaseExpiresAtMs === expiresAtMs + 1;',
      },
    ],
    tests: ['test/fence/claim.test.ts'],
  },
  {
    name: 'rebuild-next-seq-below-pending',
    breaks: 'rebuild: nextSeq stays above every pending batch a restored record is behind',
    edits: [
      {
        file: 'lib/recovery/rebuild.ts',
        find: '    nextSeq: Math.max(fenced.nextSeq, proven.lastSeq + 1, (report.batches.pending.toSeq ?? 0) + 1),',
        replace: '    nextSeq: Math.max(fenced.nextSeq, proven.lastSeq + 1),',
      },
    ],
    tests: ['test/recovery/restore-pending.test.ts'],
  },
  {
    name: 'reconcile-takes-mismatch-as-covered',
    breaks: 'rule 2: a batch S3 holds other rows for is quarantined, never left to expire',
    edits: [
      {
        file: 'lib/recovery/reconcile-batches.ts',
        find: '    if (verdict.covered) {\n      covered += 1;',
        replace: '    if (verdict.covered || head.seq > 0) {\n      covered += 1;',
      },
    ],
    tests: ['test/recovery/divergence.test.ts', 'test/recovery/quarantine.test.ts'],
  },
  {
    name: 'expiry-extension-skips-poisoned',
    breaks: 'L5: the scheduled verify extends pending expiry on a poisoned shard too',
    edits: [
      {
        file: 'lib/recovery/verify-heal.ts',
        find: '  const extended = await extendPendingExpiry(deps.table, record, nowMs);',
        replace:
          '  const extended = record.poison ? 0 : await extendPendingExpiry(deps.table, record, nowMs);',
      },
    ],
    tests: ['test/put/pending-expiry.test.ts', 'test/recovery/verify.test.ts'],
  },
  {
    name: 'reconcile-first-pending-as-proven',
    breaks:
      'rule 4: every batch above the seq S3 proves stays pending and is flushed after the rebuild',
    edits: [
      {
        file: 'lib/recovery/reconcile-batches.ts',
        find: '    if (head.seq > provenSeq) {',
        replace: '    if (head.seq > provenSeq + 1) {',
      },
    ],
    tests: ['test/recovery/restore-pending.test.ts', 'test/recovery/divergence.test.ts'],
  },
  {
    name: 'renew-up-to-next-seq',
    breaks: 'L5: pending batches above a restored record’s nextSeq are renewed too',
    edits: [
      {
        file: 'lib/memtable/batch-expiry.ts',
        find: '    batchesFrom(fromSeq),',
        replace: '    batchRange(fromSeq, toSeq),',
      },
    ],
    tests: ['test/recovery/restore-pending.test.ts'],
  },
  // Issue 20, the second reviewer's pass: one-line mistakes nobody planted before.
  {
    name: 'orphan-cutoff-in-seconds',
    breaks: 'T3: orphans are swept only below a manifest older than the orphan age (ms, not s)',
    edits: [
      {
        file: 'lib/export/retention.ts',
        find: '  const orphanCutoff = nowMs - orphanAgeMs(deps);',
        replace: '  const orphanCutoff = nowMs - orphanAgeMs(deps) / 1000;',
      },
    ],
    tests: ['test/export/orphan-sweep.test.ts', 'test/export/retention.test.ts'],
  },
  {
    name: 'orphan-sweep-deletes-kept-segments',
    breaks: 'T3: a segment a kept manifest lists is never an orphan',
    edits: [
      {
        file: 'lib/export/retention.ts',
        find: '      if (first >= sweepBelow) break;\n      if (referenced.has(key)) continue;\n',
        replace: '      if (first >= sweepBelow) break;\n',
      },
    ],
    tests: ['test/export/orphan-sweep.test.ts', 'test/export/retention.test.ts'],
  },
  {
    name: 'orphan-sweep-moves-wal-cursor',
    breaks: 'T3: the orphan sweep moves its own cursor, not the WAL retirement one',
    edits: [
      {
        file: 'lib/export/retention.ts',
        find: '    await advanceRetentionCursor(deps.table, shard, RetentionCursor.orphans, sweepBelow);',
        replace:
          '    await advanceRetentionCursor(deps.table, shard, RetentionCursor.wal, sweepBelow);',
      },
    ],
    tests: ['test/export/orphan-sweep.test.ts', 'test/export/retention.test.ts'],
  },
  {
    name: 'wal-retire-takes-its-bound',
    breaks:
      'T2: the WAL object at the retirement bound (what the fallback export needs first) stays',
    edits: [
      {
        file: 'lib/export/retention.ts',
        find: '      if (position >= retiredBelow) break;',
        replace: '      if (position > retiredBelow) break;',
      },
    ],
    tests: ['test/export/retention.test.ts'],
  },
  {
    name: 'wal-retire-ignores-table-floor',
    breaks: 'T2: a WAL position a table has not committed yet is never retired',
    edits: [
      {
        file: 'lib/export/retention.ts',
        find: '  const retiredBelow = Math.min(fallbackFloor, agedFloor, tableFloor);',
        replace: '  const retiredBelow = Math.min(fallbackFloor, agedFloor);',
      },
    ],
    tests: ['test/table/floor.test.ts', 'test/export/retention.test.ts'],
  },
  {
    name: 'legacy-retired-with-one-manifest',
    breaks: 'T1: legacy exports stay until two valid manifests exist at or below the watermark',
    edits: [
      {
        file: 'lib/export/retention.ts',
        find: '    (e.ref.kind === ExportKind.aof && validManifests.length < 2);',
        replace: '    (e.ref.kind === ExportKind.aof && validManifests.length < 1);',
      },
    ],
    tests: ['test/export/retention.test.ts'],
  },
  {
    name: 'deadline-adds-skew',
    breaks: 'D1: the export deadline is half the retention LESS the clock skew',
    edits: [
      {
        file: 'lib/export/deadline.ts',
        find: 'Math.floor((retentionMs - (deps.clockSkewMs ?? 0)) / 2)',
        replace: 'Math.floor((retentionMs + (deps.clockSkewMs ?? 0)) / 2)',
      },
    ],
    tests: ['test/export/export-deadline.test.ts'],
  },
  {
    name: 'void-lifetime-is-the-shorter',
    breaks:
      'L4: a void lives as long as the longest of a put and a reservation that could ask about it',
    edits: [
      {
        file: 'lib/liveness.ts',
        find: '  return Math.max(putAlive, askable);',
        replace: '  return Math.min(putAlive, askable);',
      },
    ],
    tests: ['test/recovery/void-tombstone.test.ts', 'test/put/pending-expiry.test.ts'],
  },
  {
    name: 'rebuild-retry-after-in-ms',
    breaks: "a put refused by a rebuild's fence says when to retry in seconds",
    edits: [
      {
        file: 'lib/liveness.ts',
        find: '  return Math.max(1, Math.ceil((leaseLeftMs + afterLapseMs) / 1000));',
        replace: '  return Math.max(1, Math.ceil(leaseLeftMs + afterLapseMs));',
      },
    ],
    tests: ['test/recovery/takeover.test.ts', 'test/put/allocate.test.ts'],
  },
  {
    name: 'rebuild-retry-after-without-skew',
    breaks:
      'a put refused by a rebuild is told to wait until the takeover is due (lease + skew + a tick)',
    edits: [
      {
        file: 'lib/liveness.ts',
        find: '  return settings.leaseMs + settings.clockSkewMs + (settings.flushIntervalMs ?? 0);',
        replace: '  return settings.leaseMs + (settings.flushIntervalMs ?? 0);',
      },
    ],
    tests: ['test/recovery/takeover.test.ts', 'test/put/allocate.test.ts'],
  },
  {
    name: 'repeat-waiter-trusts-durable-seq',
    breaks: 'a waiter that did not allocate never answers durable for a seq a rebuild set aside',
    edits: [
      {
        file: 'lib/put/durable-wait.ts',
        find: '      if (!fresh) await assertNotSetAside(table, record, input.seq);',
        replace: '      if (fresh) await assertNotSetAside(table, record, input.seq);',
      },
    ],
    tests: ['test/put/durable-wait-rebuild.test.ts', 'test/put/durability.test.ts'],
  },
  {
    name: 'seq-state-misses-rolled-back-quarantine',
    breaks:
      'seq status: a copy quarantined by a rebuild that then rolled back (generation + 1) reads as quarantined',
    edits: [
      {
        file: 'lib/status/seq-state.ts',
        find: '  const quarantine = await findQuarantineHead(table, shard, seq, record.generation + 1);',
        replace:
          '  const quarantine = await findQuarantineHead(table, shard, seq, record.generation);',
      },
    ],
    tests: ['test/status/seq-state.test.ts', 'test/put/durable-wait-rebuild.test.ts'],
  },
  {
    name: 'seq-state-skips-first-generation',
    breaks: "seq status: the first rebuild's quarantined copies (generation 1) are found",
    edits: [
      {
        file: 'lib/memtable/quarantine.ts',
        find: '  for (let generation = maxGeneration; generation >= 1; generation--) {',
        replace: '  for (let generation = maxGeneration; generation > 1; generation--) {',
      },
    ],
    tests: ['test/status/seq-state.test.ts', 'test/put/durable-wait-rebuild.test.ts'],
  },
  {
    name: 'quarantine-copy-unawaited',
    breaks: 'a quarantined batch is deleted only after its copy is confirmed written',
    edits: [
      {
        file: 'lib/memtable/quarantine.ts',
        find: '    await sendUnconditional(\n      table,\n      new PutItemCommand({ TableName: table.tableName, Item: copy }),',
        replace:
          '    void sendUnconditional(\n      table,\n      new PutItemCommand({ TableName: table.tableName, Item: copy }),',
      },
    ],
    tests: ['test/recovery/quarantine.test.ts'],
  },
  {
    name: 'quarantine-reason-on-chunks',
    breaks: "a quarantined batch's head copy carries the reason and time it was set aside",
    edits: [
      {
        file: 'lib/memtable/quarantine.ts',
        find: "    if (suffix === '') {",
        replace: "    if (suffix !== '') {",
      },
    ],
    tests: ['test/recovery/quarantine.test.ts', 'test/status/seq-state.test.ts'],
  },
  {
    name: 'quarantine-head-key-swapped',
    breaks:
      'seq status reads a quarantined copy under (generation, seq), the key it was written at',
    edits: [
      {
        file: 'lib/memtable/quarantine.ts',
        find: '      Key: { pk: { S: shardPk(shard) }, sk: { S: rejectedSk(generation, seq) } },',
        replace:
          '      Key: { pk: { S: shardPk(shard) }, sk: { S: rejectedSk(seq, generation) } },',
      },
    ],
    tests: ['test/status/seq-state.test.ts', 'test/put/durable-wait-rebuild.test.ts'],
  },
  {
    name: 'tail-retired-skips-first-row',
    breaks:
      "tail: a reader the retention overtook resumes at the export's first row it has not read",
    edits: [
      {
        file: 'lib/client/reader/tail-shard.ts',
        find: '        const batch = this.#accept(rows, (row) => row.offset >= minOffset);',
        replace: '        const batch = this.#accept(rows, (row) => row.offset > minOffset);',
      },
    ],
    tests: ['test/client/tail-follow.test.ts', 'test/client/tail.test.ts'],
  },
  {
    name: 'tail-retired-resumes-past-watermark',
    breaks: "tail: after an export's segments the WAL continues at the export's covered position",
    edits: [
      {
        file: 'lib/client/reader/tail-shard.ts',
        find: '    this.#position = header.coveredPosition;\n  }',
        replace: '    this.#position = header.coveredPosition + 1;\n  }',
      },
    ],
    tests: ['test/client/tail-follow.test.ts', 'test/client/tail.test.ts'],
  },
  {
    name: 'claim-ignores-poison',
    breaks: 'no flush claims a poisoned shard (a rebuild or an operator holds it)',
    edits: [
      {
        file: 'lib/fence/claim.ts',
        find: "        'attribute_exists(pk) AND attribute_not_exists(poison) AND (attribute_not_exists(leaseExpiresAtMs) OR leaseExpiresAtMs < :now)',",
        replace:
          "        'attribute_exists(pk) AND (attribute_not_exists(leaseExpiresAtMs) OR leaseExpiresAtMs < :now)',",
      },
    ],
    tests: ['test/fence/claim.test.ts', 'test/recovery/takeover.test.ts'],
  },
  {
    name: 'claim-steals-live-lease',
    breaks: "F2: a claim waits for the holder's lease to expire",
    edits: [
      {
        file: 'lib/fence/claim.ts',
        find: "        ':expires': { N: String(expiresAtMs) },\n        ':now': { N: String(nowMs) },",
        replace:
          "        ':expires': { N: String(expiresAtMs) },\n        ':now': { N: String(expiresAtMs) },",
      },
    ],
    tests: ['test/fence/claim.test.ts', 'test/flush/lease.test.ts'],
  },
  {
    name: 'drain-next-off-by-one',
    breaks: 'C5: a commit that covers every allocated seq drains the shard in the same update',
    edits: [
      {
        file: 'lib/fence/commit.ts',
        find: "    values[':next'] = { N: String(input.lastSeq + 1) };",
        replace: "    values[':next'] = { N: String(input.lastSeq) };",
      },
    ],
    tests: ['test/fence/commit.test.ts', 'test/flush/pending-marker.test.ts'],
  },
  {
    name: 'gap-seal-in-seconds',
    breaks: 'a flusher seals a gap only once it is gapSealMs old (ms, not s)',
    edits: [
      {
        file: 'lib/flush/resolve-pending.ts',
        find: '    if (nowMs - allocatedBy < gapSealMs) {',
        replace: '    if (nowMs - allocatedBy < gapSealMs / 1000) {',
      },
    ],
    tests: ['test/flush/gaps.test.ts'],
  },
  {
    name: 'verify-seals-next-seq',
    breaks: 'verify seals only allocated seqs: the next seq a put will take stays free',
    edits: [
      {
        file: 'lib/recovery/verify-heal.ts',
        find: '  const toSeq = record.nextSeq - 1;\n  if (toSeq < fromSeq) return [];\n  const heads',
        replace:
          '  const toSeq = record.nextSeq;\n  if (toSeq < fromSeq) return [];\n  const heads',
      },
    ],
    tests: ['test/recovery/verify.test.ts'],
  },
  {
    name: 'idempotency-window-in-seconds',
    breaks: 'K1: a key is answered from its record for the whole idempotency window',
    edits: [
      {
        file: 'lib/memtable/idempotency.ts',
        find: "  if (!item || num(item, 'expiresAtMs', 0) < nowMs) return undefined;",
        replace: "  if (!item || num(item, 'expiresAt', 0) < nowMs) return undefined;",
      },
    ],
    tests: ['test/put/idempotency.test.ts', 'test/memtable/idempotency.test.ts'],
  },
  {
    name: 'reservation-overwrites-live-key',
    breaks: "K1: a reservation replaces a key's record only once its window ended",
    edits: [
      {
        file: 'lib/memtable/idempotency.ts',
        find: "      ConditionExpression: 'attribute_not_exists(pk) OR expiresAtMs < :now',",
        replace: "      ConditionExpression: 'attribute_not_exists(pk) OR expiresAt < :now',",
      },
    ],
    tests: ['test/put/idempotency.test.ts', 'test/memtable/idempotency.test.ts'],
  },
  {
    name: 'journal-sync-skips-running-write',
    breaks: 'Q1: a sync with nothing new staged still waits for the batch being written',
    edits: [
      {
        file: 'lib/local/queue-journal.ts',
        find: '    if (this.#staged.size === 0) return this.#writing ?? Promise.resolve();',
        replace: '    if (this.#staged.size === 0) return Promise.resolve();',
      },
    ],
    tests: ['test/local/queue-journal.test.ts'],
  },
  {
    name: 'journal-failure-forgotten',
    breaks: 'Q1: after a failed journal write nothing more is acknowledged as on disk',
    edits: [
      {
        file: 'lib/local/queue-journal.ts',
        find: '      this.#failure ??= error;\n      throw error;',
        replace: '      throw error;',
      },
    ],
    tests: ['test/local/queue-journal.test.ts'],
  },
  {
    name: 'journal-two-writers',
    breaks: 'J2: the journal writes one batch at a time',
    edits: [
      {
        file: 'lib/local/queue-journal.ts',
        find: '    await this.#writing?.catch(() => undefined);\n    this.#next = undefined;',
        replace: '    this.#next = undefined;\n    await this.#writing?.catch(() => undefined);',
      },
    ],
    tests: ['test/local/queue-journal.test.ts'],
  },
  {
    name: 'admission-one-too-many',
    breaks: 'P1: at most maxInFlight puts of one shard run at once on the local stack',
    edits: [
      {
        file: 'lib/local/put-admission.ts',
        find: '    if (door.inFlight < this.#options.maxInFlight) {',
        replace: '    if (door.inFlight <= this.#options.maxInFlight) {',
      },
    ],
    tests: ['test/local/put-admission.test.ts'],
  },
  {
    name: 'admission-forgets-full',
    breaks: 'P2: after a 429 the shard refuses at once for fullForMs, even with nothing in flight',
    edits: [
      {
        file: 'lib/local/put-admission.ts',
        find: '    if (door.inFlight === 0 && door.waiting.length === 0 && !full) this.#doors.delete(shard);',
        replace:
          '    if (door.inFlight === 0 && door.waiting.length === 0) this.#doors.delete(shard);',
      },
    ],
    tests: ['test/local/put-admission.test.ts'],
  },
  {
    name: 'body-declared-limit-off-by-one',
    breaks: 'local gateway: a body whose content-length is exactly the limit is taken',
    edits: [
      {
        file: 'lib/local/read-body.ts',
        find: '  if (Number.isFinite(declared) && declared > limitBytes) {',
        replace: '  if (Number.isFinite(declared) && declared >= limitBytes) {',
      },
    ],
    tests: ['test/local/read-body.test.ts', 'test/local/api-gateway-body.test.ts'],
  },
  {
    name: 'wal-check-misses-last-seq',
    breaks: "W: every seq up to the header's lastSeq has rows or is listed void",
    edits: [
      {
        file: 'lib/wal/wal-check.ts',
        find: "    this.#coverUpTo(lastSeq + 1, 'end of object');",
        replace: "    this.#coverUpTo(lastSeq, 'end of object');",
      },
    ],
    tests: ['test/wal/decode.test.ts'],
  },
  {
    name: 'wal-check-accepts-short-object',
    breaks: 'W: an object with fewer rows than its header says is corrupt (truncated)',
    edits: [
      {
        file: 'lib/wal/wal-check.ts',
        find: '    if (this.#rows !== rowCount)',
        replace: '    if (this.#rows > rowCount)',
      },
    ],
    tests: ['test/wal/decode.test.ts'],
  },
  {
    name: 'stall-clock-reset-by-each-put',
    breaks:
      'L5 / A3: the stall clock starts at the oldest pending allocation; later puts do not restart it',
    edits: [
      {
        file: 'lib/memtable/allocate.ts',
        find: 'pendingSinceMs = if_not_exists(pendingSinceMs, :now),',
        replace: 'pendingSinceMs = :now,',
      },
    ],
    tests: ['test/put/stall.test.ts', 'test/put/pending-expiry.test.ts'],
  },
  {
    name: 'renew-skips-a-lone-batch',
    breaks: 'L5: a shard with a single pending batch has it renewed too',
    edits: [
      {
        file: 'lib/memtable/batch-expiry.ts',
        find: '  const toSeq = record.nextSeq - 1;\n  if (toSeq < fromSeq) return 0;\n  const { batchMs }',
        replace:
          '  const toSeq = record.nextSeq - 1;\n  if (toSeq <= fromSeq) return 0;\n  const { batchMs }',
      },
    ],
    tests: ['test/recovery/verify.test.ts', 'test/put/pending-expiry.test.ts'],
  },
  {
    name: 'waiter-ignores-poison',
    breaks: 'a durable waiter on a poisoned shard answers at once that the shard is closed',
    edits: [
      {
        file: 'lib/put/durable-wait.ts',
        find: '    if (record?.poison) throw new PoisonedError(input.shard, record.poison);\n',
        replace: '',
      },
    ],
    tests: ['test/put/durability.test.ts', 'test/put/durable-wait-rebuild.test.ts'],
  },
  {
    name: 'commit-moment-skips-running-tick',
    breaks:
      "W1': a waiter allocated just after a tick reads at that tick's commit, not a whole interval later",
    edits: [
      {
        file: 'lib/put/durable-wait.ts',
        find: '  return nextGridTick(nowMs - commitDelayMs, intervalMs) + commitDelayMs;',
        replace: '  return nextGridTick(nowMs, intervalMs) + commitDelayMs;',
      },
    ],
    tests: ['test/client/wait-durable.test.ts', 'test/put/durability.test.ts'],
  },
  {
    name: 'in-progress-retry-after-absolute',
    breaks:
      "K2: a repeat of a key in progress is told to retry when the owner's lease ends (seconds from now)",
    edits: [
      {
        file: 'lib/put/claim-key.ts',
        find: '      throw new InProgressError(input.key, retryAfterSeconds(record.leaseExpiresAtMs - nowMs));',
        replace:
          '      throw new InProgressError(input.key, retryAfterSeconds(record.leaseExpiresAtMs));',
      },
    ],
    tests: ['test/put/idempotency.test.ts'],
  },
  {
    name: 'flush-writes-slot-an-export-covers',
    breaks: 'I8/B1: a flusher never writes a position an export covers (a record behind S3)',
    edits: [
      {
        file: 'lib/flush/flush-shard.ts',
        find: '    if (behind) return poison(deps, claim, behind);',
        replace: '    if (behind && behind.length < 0) return poison(deps, claim, behind);',
      },
    ],
    tests: ['test/flush/record-behind.test.ts'],
  },
  {
    name: 'slot-proof-skipped-for-a-full-retention',
    breaks: 'B2: a walNextPos set over half the WAL retention ago is proven free of exports',
    edits: [
      {
        file: 'lib/flush/record-behind.ts',
        find: '  return Math.max(0, Math.floor(walRetentionMs / 2) - 2 * clockSkewMs);',
        replace: '  return Math.max(0, walRetentionMs - 2 * clockSkewMs);',
      },
    ],
    tests: ['test/flush/record-behind.test.ts'],
  },
  {
    name: 'commit-past-next-seq',
    breaks: 'C6/I9: a commit never moves durableSeq to or past nextSeq',
    edits: [
      {
        file: 'lib/fence/commit.ts',
        find: "    condition += ' AND nextSeq > :lastSeq'; // C6",
        replace: '    // (no C6 condition)',
      },
    ],
    tests: ['test/flush/record-behind.test.ts', 'test/fence/commit.test.ts'],
  },
  {
    name: 'rebuild-dates-reissued-seq-by-next-item',
    breaks:
      'rebuild rule 3: every empty seq a record behind S3 allocated is sealed void, whatever its age',
    edits: [
      {
        file: 'lib/recovery/reconcile-batches.ts',
        find: "    // Rule 3: no age test. The next item may be an old timeline's (a reissued seq), so it dates nothing.\n",
        replace:
          '    const allocatedBy = next ? next.createdAtMs : (fenced.lastAllocAtMs ?? nowMs);\n    if (nowMs - allocatedBy >= deps.gapSealMs) continue;\n',
      },
    ],
    tests: ['test/recovery/restore-pending.test.ts'],
  },
  {
    name: 'status-void-over-reissued-rows',
    breaks:
      'seq status S1: a void a rebuild sealed at a reissued seq answers what the WAL holds there, never void over durable rows',
    edits: [
      {
        file: 'lib/status/seq-state.ts',
        find: '    if (!(head.reissued && atOrBelowDurable)) return { state: SeqState.void };\n',
        replace: '    return { state: SeqState.void };\n',
      },
    ],
    tests: ['test/status/seq-state.test.ts'],
  },
  {
    name: 'rebuild-seals-reissued-seq-unmarked',
    breaks: 'rebuild rule 3: a reissued seq is sealed as such, so its status asks the WAL',
    edits: [
      {
        file: 'lib/recovery/reconcile-batches.ts',
        find: 'sealVoid(deps.table, shard, seq, nowMs, { reissued: true })',
        replace: 'sealVoid(deps.table, shard, seq, nowMs)',
      },
    ],
    tests: ['test/status/seq-state.test.ts'],
  },
  {
    name: 'rebuild-keeps-replay-of-a-rolled-back-record',
    breaks:
      'rebuild: a record that went back before the fence is replayed again, so every seq above it finds its WAL content',
    edits: [
      {
        file: 'lib/recovery/rebuild.ts',
        find: '    const rolledBack = fenced.durableSeq < (before?.durableSeq ?? 0);',
        replace: '    const rolledBack = fenced.durableSeq < 0;',
      },
    ],
    tests: ['test/recovery/restore-pending.test.ts'],
  },
  {
    name: 'reconcile-dates-export-seq-by-time-alone',
    breaks:
      'rebuild C2: an item the export covers, within the clock skew of it, is compared with the WAL object below the export',
    edits: [
      {
        file: 'lib/recovery/seq-content.ts',
        find: '      if (below) return compareWith(below, seq, rows);\n',
        replace: '',
      },
    ],
    tests: ['test/recovery/restore-pending.test.ts'],
  },
  {
    name: 'rebuild-seals-quarantined-seq',
    breaks: 'Rule 3: a re-run rebuild leaves a seq its killed predecessor quarantined unsealed',
    edits: [
      {
        file: 'lib/recovery/reconcile-batches.ts',
        find: '    if (await readQuarantineHead(deps.table, shard, input.generation, seq)) continue;\n',
        replace: '',
      },
    ],
    tests: ['test/status/seq-state.test.ts'],
  },
  {
    name: 'flush-ignores-batches-older-than-claim',
    breaks:
      "B3: a flusher refuses batches older than its claim at seqs the claim's record had not allocated",
    edits: [
      {
        file: 'lib/flush/record-behind.ts',
        find: '    (batch) => batch.seq >= nextSeq && batch.createdAtMs < claimedAtMs - clockSkewMs,',
        replace:
          '    (batch) => batch.seq >= nextSeq && batch.createdAtMs < claimedAtMs - clockSkewMs - 1e12,',
      },
    ],
    tests: ['test/flush/record-behind.test.ts'],
  },
  // The Iceberg tables' planted bugs (`test/table/mutants.ts`): killed by their tests, most by the simulation too.
  ...TABLE_MUTANTS,
];
