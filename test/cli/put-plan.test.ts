import { describe, expect, it } from 'vitest';
import { BatchPlanner, batchKey, type PlannedBatch } from '../../lib/cli/put-plan.js';

/** The plan of rows `sizes[i]` bytes at line i+1 (`undefined`: a blank line). */
function plan(sizes: (number | undefined)[], maxBytes = 100, linesPerBlock = 4): PlannedBatch[] {
  const planner = new BatchPlanner({ linesPerBlock, maxBytes, overheadBytes: 10 });
  sizes.forEach((bytes, i) => {
    if (bytes !== undefined) planner.addRow(i + 1, bytes);
  });
  return planner.finish();
}

const ranges = (batches: PlannedBatch[]) => batches.map((b) => `${b.firstLine}-${b.lastLine}`);

describe('BatchPlanner', () => {
  describe('finish', () => {
    it('cuts fixed line blocks, blank lines included, and skips empty ones', () => {
      expect(
        ranges(
          plan([5, 5, undefined, 5, 5, 5, 5, 5, undefined, undefined, undefined, undefined, 5]),
        ),
      ).toEqual(['1-4', '5-8', '13-16']);
      expect(plan([5, undefined, 5])[0]!.rows).toBe(2);
    });

    it('halves a block over the byte limit by line range until each part fits', () => {
      // 10 + 4×30 + 3 = 133 > 100: halves of 10 + 2×30 + 1 = 71 fit.
      expect(ranges(plan([30, 30, 30, 30]))).toEqual(['1-2', '3-4']);
      // A half still over the limit is halved again; a single row always goes alone.
      expect(ranges(plan([80, 80, 10, 10]))).toEqual(['1-1', '2-2', '3-4']);
    });

    it('keeps every other batch when a line changes in place, unless its own part crosses the limit', () => {
      const before = plan([30, 30, 30, 30, 5, 5, 5, 5]);
      expect(ranges(plan([30, 30, 35, 30, 5, 5, 5, 5]))).toEqual(ranges(before));
      expect(ranges(plan([30, 30, 30, 30, 5, 60, 5, 5]))).toEqual(ranges(before));
      // A part that grows past the limit splits; its sibling half stays as it was.
      expect(ranges(plan([30, 30, 80, 30, 5, 5, 5, 5]))).toEqual(['1-2', '3-3', '4-4', '5-8']);
    });
  });
});

describe('batchKey', () => {
  const scope = { shard: 'orders', keyField: undefined };
  const batch = { firstLine: 1, lastLine: 4, rows: 2 };

  it('is the prefix and 16 hex digits, the same for the same rows at the same lines', () => {
    const key = batchKey('put', scope, batch, ['{"a":1}', '{"b":2}']);
    expect(key).toMatch(/^put-[0-9a-f]{16}$/);
    expect(batchKey('put', scope, batch, ['{"a":1}', '{"b":2}'])).toBe(key);
  });

  it('changes with any row, the line range, the shard, the key field and the prefix', () => {
    const key = batchKey('put', scope, batch, ['{"a":1}', '{"b":2}']);
    const others = [
      batchKey('put', scope, batch, ['{"a":1}', '{"b":3}']),
      batchKey('put', scope, batch, ['{"a":1}{"b":2}']),
      batchKey('put', scope, { ...batch, firstLine: 5, lastLine: 8 }, ['{"a":1}', '{"b":2}']),
      batchKey('put', { ...scope, shard: 'other' }, batch, ['{"a":1}', '{"b":2}']),
      batchKey('put', { ...scope, keyField: 'a' }, batch, ['{"a":1}', '{"b":2}']),
    ];
    for (const other of others) expect(other.slice(-16)).not.toBe(key.slice(-16));
    expect(batchKey('mine', scope, batch, ['{"a":1}', '{"b":2}'])).toBe(`mine-${key.slice(-16)}`);
  });
});
