/** ShardState: a WAL object's rows are provisional; a rollback leaves the state as it was before them. */
import { describe, expect, it } from 'vitest';
import { ShardState } from '../../lib/recovery/shard-state.js';
import type { WalRow } from '../../lib/wal/format.js';

/** A copy of the state's content (a map's insertion order is not part of it; entries change in place). */
const contentOf = (state: ShardState) => ({
  keyed: [...state.keyed]
    .map(([key, entry]) => [key, { ...entry }])
    .sort(([a], [b]) => (a! < b! ? -1 : 1)),
  keyless: [...state.keyless],
  keylessCount: state.keylessCount,
  applied: { ...state.applied },
});

const put = (key: string, seq: number, offset: number): WalRow => ({
  seq,
  offset,
  key,
  text: `{"v":${offset}}`,
});

describe(ShardState, () => {
  describe('rollbackObject', () => {
    it('undoes puts, deletes and keyless rows of the object, newest first, and keeps earlier objects', () => {
      const state = new ShardState({ keepRows: true, keepKeyless: true });
      state.beginObject();
      state.apply(put('"a"', 1, 0));
      state.apply(put('"b"', 1, 1));
      state.apply({ seq: 1, offset: 2, text: '{"k":0}' });
      state.commitObject();
      const before = contentOf(state);
      state.beginObject();
      state.apply(put('"a"', 2, 3));
      state.apply({ seq: 2, offset: 4, key: '"a"', delete: true });
      state.apply(put('"a"', 2, 5));
      state.apply({ seq: 2, offset: 6, key: '"b"', delete: true });
      state.apply(put('"c"', 2, 7));
      state.apply({ seq: 2, offset: 8, text: '{"k":1}' });
      expect([...state.keyed.keys()].sort()).toEqual(['"a"', '"c"']);
      state.rollbackObject();
      expect(contentOf(state)).toStrictEqual(before);
    });

    it('undoes only the rows of the object being read when an earlier object logged more', () => {
      const state = new ShardState({ keepRows: false, keepKeyless: false });
      state.beginObject();
      state.apply(put('"a"', 1, 0));
      state.apply(put('"b"', 1, 1));
      state.apply({ seq: 1, offset: 2, key: '"a"', delete: true });
      state.commitObject();
      state.beginObject();
      state.apply(put('"c"', 2, 3));
      state.commitObject();
      const before = contentOf(state);
      state.beginObject();
      state.apply(put('"b"', 3, 4));
      state.rollbackObject();
      expect(contentOf(state)).toStrictEqual(before);
      expect([...state.keyed.keys()].sort()).toEqual(['"b"', '"c"']);
    });

    it('counts keyless rows without holding them unless asked to', () => {
      const state = new ShardState({ keepRows: false, keepKeyless: false });
      state.beginObject();
      expect(state.apply({ seq: 1, offset: 0, text: '{}' })).toBe(true);
      expect(state.apply(put('"a"', 1, 1))).toBe(false);
      state.commitObject();
      expect(state.keylessCount).toBe(1);
      expect(state.keyless).toEqual([]);
      expect(state.keyed.get('"a"')).toEqual({ seq: 1, offset: 1, text: undefined });
      expect(state.applied).toEqual({ puts: 1, deletes: 0, keyless: 1 });
    });
  });
});
