import { describe, expect, it } from 'vitest';
import { InternalError } from '../../lib/errors.js';
import { encodeWal } from '../../lib/wal/encode.js';
import type { WalObject } from '../../lib/wal/format.js';
import { walObject } from './helpers.js';

/** A valid object (seqs 10..12, 12 void; offsets 100..102) edited by `edit`. */
function edited(edit: (object: WalObject) => void): WalObject {
  const object = walObject([
    [{ key: 'a', row: { n: 1 } }, { row: { n: 2 } }],
    [{ key: 'a', delete: true }],
    'void',
  ]);
  edit(object);
  return object;
}

type Case = [when: string, edit: (object: WalObject) => void, message: RegExp];

const cases: Case[] = [
  [
    'rowCount differs from rows.length',
    ({ header }) => {
      header.rowCount = 4;
    },
    /rowCount 4, the object has 3 rows/,
  ],
  [
    'an offset skips',
    ({ rows }) => {
      rows[1]!.offset = 102;
    },
    /rows\[1\]: offset 102, expected 101/,
  ],
  [
    'a row seq is below firstSeq',
    ({ rows }) => {
      rows[0]!.seq = 9;
    },
    /seq 9 is outside \[10, 12\]/,
  ],
  [
    'a row seq is above lastSeq',
    ({ rows }) => {
      rows[2]!.seq = 13;
    },
    /seq 13 is outside \[10, 12\]/,
  ],
  [
    'row seqs decrease',
    ({ rows }) => {
      rows[1]!.seq = 11;
      rows[2]!.seq = 10;
    },
    /rows\[2\]: seq 10 after seq 11/,
  ],
  [
    'a seq is neither rows nor void',
    ({ header }) => {
      header.voidSeqs = [];
    },
    /seq 12 has no rows and is not listed as void/,
  ],
  [
    'a void seq holds rows',
    ({ header }) => {
      header.voidSeqs = [11, 12];
    },
    /seq 11 is listed as void but holds rows/,
  ],
  [
    'void seqs are out of order',
    ({ header }) => {
      header.lastSeq = 13;
      header.voidSeqs = [13, 12];
    },
    /strictly ascending, got 12 after 13/,
  ],
  [
    'a void seq is outside the range',
    ({ header }) => {
      header.voidSeqs = [12, 13];
    },
    /void seq 13 is outside \[10, 12\]/,
  ],
  [
    'firstSeq is after lastSeq',
    ({ header }) => {
      header.firstSeq = 13;
    },
    /firstSeq 13 is after lastSeq 12/,
  ],
  [
    'position is not an integer',
    ({ header }) => {
      header.position = 1.5;
    },
    /position must be a non-negative integer, got 1.5/,
  ],
  [
    'epoch is negative',
    ({ header }) => {
      header.epoch = -1;
    },
    /epoch must be a non-negative integer, got -1/,
  ],
  [
    'the shard name is not a valid shard',
    ({ header }) => {
      header.shard = 'Bad/Shard';
    },
    /shard must match .* got "Bad\/Shard"/,
  ],
  [
    'a delete has no key',
    ({ rows }) => {
      delete rows[2]!.key;
    },
    /rows\[2\]: a delete must have a key/,
  ],
  [
    'a delete carries a row',
    ({ rows }) => {
      rows[2]!.text = '{}';
    },
    /rows\[2\]: a delete must not carry a row/,
  ],
  [
    'a put has no row',
    ({ rows }) => {
      delete rows[1]!.text;
    },
    /rows\[1\]: row must be a JSON object, got undefined/,
  ],
  [
    'a row is an array',
    ({ rows }) => {
      rows[1]!.text = '[]';
    },
    /rows\[1\]: row must be a JSON object, got "\[\]"/,
  ],
  [
    'a key is not a JSON string or number',
    ({ rows }) => {
      rows[0]!.key = 'user-1';
    },
    /rows\[0\]: key must be a JSON string or number, got "user-1"/,
  ],
];

describe(encodeWal, () => {
  describe('input validation', () => {
    for (const [when, edit, message] of cases) {
      it(`throws InternalError when ${when}`, () => {
        const object = edited(edit);
        expect(() => encodeWal(object)).toThrow(InternalError);
        expect(() => encodeWal(object)).toThrow(message);
      });
    }

    it('names the shard and position in the error when the input is inconsistent', () => {
      const object = edited(({ header }) => {
        header.rowCount = 0;
      });
      expect(() => encodeWal(object)).toThrow(/^encodeWal\(s1 position 7\): /);
    });
  });

  it('writes gzip bytes when given a valid object', () => {
    const bytes = encodeWal(edited(() => {}));
    expect([bytes[0], bytes[1]]).toEqual([0x1f, 0x8b]);
  });
});
