/**
 * Every installed package runs on the Node this project runs on: no
 * `engines.node` in package-lock.json excludes it (`npm ci` would warn
 * EBADENGINE, as it did for cookie@2, which needs Node 22, under fauxqs →
 * fastify → light-my-request; package.json's `overrides` pins cookie@1.1.1
 * there). The ranges are npm's (`||`, comparators, `^`, `~`, x-ranges).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

type Version = [number, number, number];

const parse = (text: string): Version => {
  const [major = 0, minor = 0, patch = 0] = text
    .replace(/^v/, '')
    .split('.')
    .map((part) => (/^\d+$/.test(part) ? Number(part) : 0));
  return [major, minor, patch];
};
const compare = (a: Version, b: Version) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** Whether `version` satisfies one comparator (`>=14`, `^20.19.0`, `<7`, `20`). */
function satisfiesComparator(version: Version, comparator: string): boolean {
  const match = /^(>=|<=|>|<|=|\^|~)?\s*v?([\dx*.]+)$/.exec(comparator.trim());
  if (!match) throw new Error(`unreadable engines comparator ${JSON.stringify(comparator)}`);
  const [, op = '', text = ''] = match;
  const parts = text.split('.').filter((p) => p !== 'x' && p !== '*');
  const bound = parse(parts.join('.'));
  const c = compare(version, bound);
  switch (op) {
    case '>=':
      return c >= 0;
    case '>':
      return c > 0;
    case '<=':
      return c <= 0;
    case '<':
      return c < 0;
    case '^':
      return c >= 0 && version[0] === bound[0];
    case '~':
      return c >= 0 && version[0] === bound[0] && version[1] === bound[1];
    default:
      // `20`, `20.1`, `=20.1.2`: every given part equal.
      return parts.every((_, i) => version[i] === bound[i]);
  }
}

/** Whether `version` satisfies an npm range. */
function satisfies(version: string, range: string): boolean {
  const v = parse(version);
  return range.split('||').some((set) =>
    set
      .trim()
      .replace(/(>=|<=|>|<|=)\s+/g, '$1')
      .split(/\s+/)
      .filter((c) => c !== '')
      .every((c) => satisfiesComparator(v, c)),
  );
}

describe('package-lock.json', () => {
  it('reads npm ranges as npm does', () => {
    expect(satisfies('20.20.0', '>=22')).toBe(false);
    expect(satisfies('20.20.0', '^20.19.0 || >=22.12.0')).toBe(true);
    expect(satisfies('20.20.0', '>=6 <7 || >=8')).toBe(true);
    expect(satisfies('20.20.0', '>= 18.0.0')).toBe(true);
    expect(satisfies('20.20.0', '^10 || ^12 || >=14')).toBe(true);
    expect(satisfies('20.20.0', '^20.21.0')).toBe(false);
  });

  it('installs nothing whose engines exclude the running Node', () => {
    const lock = JSON.parse(
      readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8'),
    ) as { packages: Record<string, { version?: string; engines?: { node?: string } }> };
    const excluded = Object.entries(lock.packages)
      .filter(([, entry]) => entry.engines?.node !== undefined)
      .filter(([, entry]) => !satisfies(process.versions.node, entry.engines!.node!))
      .map(([name, entry]) => `${name}@${entry.version}: node ${entry.engines!.node}`);
    expect(excluded).toEqual([]);
  });
});
