/** Builders shared by the AOF tests. */
import type { AofKeyedRow, AofKeylessRow, AofObject } from '../../lib/aof/format.js';
import { aofKey } from '../../lib/paths.js';
import { encodeAof } from '../support/legacy-aof.js';

/** Key the tests store exports under (shard s1, covered position 12, matching `aofObject`). */
export const AOF_KEY = aofKey('s1', 12);

/** A valid export of shard s1 covering positions below 12. */
export function aofObject(overrides: Partial<AofObject> = {}): AofObject {
  const keyed: AofKeyedRow[] = overrides.keyed ?? [
    { key: '7', seq: 2, offset: 2, text: '{"id":7,"big":12345678901234567890}' },
    { key: '"a"', seq: 3, offset: 4, text: '{"id":"a","v":1}' },
    { key: '"b"', seq: 9, offset: 20, text: '{"id":"b","nested":{"x":[1,2]}}' },
    { key: '"é"', seq: 5, offset: 9, text: '{"id":"é"}' },
  ];
  const keyless: AofKeylessRow[] = overrides.keyless ?? [
    { seq: 1, offset: 0, text: '{"n":0}' },
    { seq: 1, offset: 1, text: '{"n":1,"x":-0,"y":1e400}' },
    { seq: 7, offset: 15, text: '{"n":2}' },
  ];
  return {
    header: {
      shard: 's1',
      coveredPosition: 12,
      lastSeq: 10,
      nextRowOffset: 25,
      keyedCount: keyed.length,
      keylessCount: keyless.length,
      previousExport: 5,
      createdAtMs: 1_700_000_000_000,
      ...overrides.header,
    },
    keyed,
    keyless,
  };
}

/** The bytes of `object` as a legacy export (`encodeAof`). */
export async function writeAof(object: AofObject): Promise<Uint8Array> {
  return encodeAof(object);
}
