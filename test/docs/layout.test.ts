/**
 * README.md's layout table against the tree: every top-level folder (but the
 * hidden ones and what `.gitignore` keeps out of the repository) and every
 * room of `lib/` (its folders) has a row, and every path a row names exists.
 * A row names its paths in its first cell, in backticks.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** The backticked paths of the first cell of each row of `## Layout`'s table in `readme`. */
function layoutPaths(readme: string): string[] {
  const section = readme.split(/^## Layout$/m)[1]?.split(/^## /m)[0];
  if (section === undefined) throw new Error('README.md has no "## Layout" section');
  const rows = section
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .slice(2); // the header and its rule
  return rows.flatMap((row) => {
    const first = row.split('|')[1] ?? '';
    return [...first.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
  });
}

/** Folder names directly in `dir`. */
function folders(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() || entry.isSymbolicLink())
    .map((entry) => entry.name);
}

/** Names `.gitignore` keeps out, as plain names (`dist/`, `/tmp/` → `dist`, `tmp`). */
function ignoredNames(): Set<string> {
  return new Set(
    readFileSync(path.join(REPO, '.gitignore'), 'utf8')
      .split('\n')
      .map((line) => line.trim().replace(/^\//, '').replace(/\/$/, ''))
      .filter((line) => line !== '' && !line.startsWith('#')),
  );
}

/** The top-level folders of the repository and the rooms of `lib/`, as `name/` and `lib/name/`. */
function treeFolders(): string[] {
  const ignored = ignoredNames();
  const top = folders(REPO)
    .filter((name) => !name.startsWith('.') && !ignored.has(name))
    .map((name) => `${name}/`);
  const rooms = folders(path.join(REPO, 'lib')).map((name) => `lib/${name}/`);
  return [...top, ...rooms].sort();
}

describe('README.md', () => {
  describe('layout table', () => {
    const listed = layoutPaths(readFileSync(path.join(REPO, 'README.md'), 'utf8'));

    it('has a row for every top-level folder and every lib/ room', () => {
      const missing = treeFolders().filter((folder) => !listed.includes(folder));
      expect(missing).toEqual([]);
    });

    it('names only paths that exist', () => {
      const gone = listed.filter((listedPath) => !existsSync(path.join(REPO, listedPath)));
      expect(gone).toEqual([]);
    });

    it('reads the paths of the first cells of the layout section only', () => {
      const table = [
        '## Layout',
        '',
        '| path | holds |',
        '|---|---|',
        '| `lib/json/`, `lib/rows/` | the exact JSON scanner; `lib/aof/` here is not a row path |',
        '| `bench/` | benchmarks |',
        '',
        '## Next',
        '| `lib/after/` | not in the section |',
      ].join('\n');
      expect(layoutPaths(table)).toEqual(['lib/json/', 'lib/rows/', 'bench/']);
    });
  });
});
