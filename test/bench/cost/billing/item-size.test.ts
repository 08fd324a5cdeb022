import { describe, expect, it } from 'vitest';
import {
  attributeSize,
  itemSize,
  itemStorageBytes,
  numberSize,
  STORAGE_OVERHEAD_BYTES,
  valueSize,
} from '../../../../bench/cost/billing/item-size.js';
import { InvalidInputError } from '../../../../lib/errors.js';

describe('item-size', () => {
  describe('valueSize', () => {
    it('counts strings in UTF-8 bytes, not characters, when they are not ASCII', () => {
      expect(valueSize({ S: 'abc' })).toBe(3);
      expect(valueSize({ S: 'é' })).toBe(2);
      expect(valueSize({ S: '日本' })).toBe(6);
      expect(valueSize({ S: '😀' })).toBe(4);
    });

    it('counts binary by raw bytes, not base64 length', () => {
      expect(valueSize({ B: new Uint8Array(300) })).toBe(300);
    });

    it('counts BOOL and NULL as one byte', () => {
      expect(valueSize({ BOOL: false })).toBe(1);
      expect(valueSize({ NULL: true })).toBe(1);
    });

    it('adds 3 bytes per list or map and 1 per element', () => {
      expect(valueSize({ L: [] })).toBe(3);
      expect(valueSize({ M: {} })).toBe(3);
      // two strings of 1 byte: 3 + (1 + 1) + (1 + 1)
      expect(valueSize({ L: [{ S: 'a' }, { S: 'b' }] })).toBe(7);
      // map elements carry their names: 3 + (len("k") + 2 + 1)
      expect(valueSize({ M: { k: { S: 'vv' } } })).toBe(7);
    });

    it('nests containers by the same rule', () => {
      // outer list: 3 + (inner + 1); inner map: 3 + (1 + 1 + 1) = 6
      expect(valueSize({ L: [{ M: { a: { BOOL: true } } }] })).toBe(10);
    });

    it('sums set members by their scalar rules', () => {
      expect(valueSize({ SS: ['ab', 'é'] })).toBe(4);
      expect(valueSize({ NS: ['12', '1234'] })).toBe(2 + 3);
      expect(valueSize({ BS: [new Uint8Array(2), new Uint8Array(5)] })).toBe(7);
    });
  });

  describe('numberSize', () => {
    it('charges 1 byte per two significant digits plus 1', () => {
      expect(numberSize('1')).toBe(2);
      expect(numberSize('12')).toBe(2);
      expect(numberSize('123')).toBe(3);
      expect(numberSize('1700000000123')).toBe(8);
    });

    it('trims leading and trailing zeroes before counting', () => {
      expect(numberSize('1000000')).toBe(2);
      expect(numberSize('0.000120')).toBe(2);
      expect(numberSize('007')).toBe(2);
    });

    it('ignores sign, decimal point and exponent', () => {
      expect(numberSize('-12.34')).toBe(3);
      expect(numberSize('1.5E+10')).toBe(2);
      expect(numberSize('0')).toBe(1);
    });

    it('throws InvalidInputError when the value is not a number', () => {
      expect(() => numberSize('12a')).toThrow(InvalidInputError);
      expect(() => numberSize('.')).toThrow(InvalidInputError);
    });
  });

  describe('itemSize', () => {
    it('sums attribute name bytes and value sizes', () => {
      const item = {
        pk: { S: 'shard#s1' }, // 2 + 8
        sk: { S: 'meta' }, // 2 + 4
        nextSeq: { N: '42' }, // 7 + 2
        data: { B: new Uint8Array(100) }, // 4 + 100
      };
      expect(itemSize(item)).toBe(10 + 6 + 9 + 104);
    });

    it('counts attribute names in UTF-8 bytes', () => {
      expect(attributeSize('é', { BOOL: true })).toBe(3);
    });

    it('throws when a value has no known type', () => {
      expect(() => itemSize({ x: {} as never })).toThrow(InvalidInputError);
    });
  });

  describe('itemStorageBytes', () => {
    it('adds the 100-byte per-item storage overhead', () => {
      expect(STORAGE_OVERHEAD_BYTES).toBe(100);
      expect(itemStorageBytes({ pk: { S: 'a' } })).toBe(3 + 100);
    });
  });
});
