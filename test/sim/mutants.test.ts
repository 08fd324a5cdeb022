/**
 * The mutant list stays runnable: every edit finds its text exactly once in
 * its file. A refactor that moves a mutant's target would otherwise leave the
 * mutant failing only when `npm run mutants` next runs it, and the bug it
 * stands for unguarded until then.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MUTANTS } from './mutants.js';

describe('MUTANTS', () => {
  it('names each mutant once', () => {
    const names = MUTANTS.map((mutant) => mutant.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it.each(MUTANTS.map((mutant) => [mutant.name, mutant] as const))(
    'finds the text of %s exactly once, and its replacement changes it',
    (_name, mutant) => {
      for (const edit of mutant.edits) {
        const text = readFileSync(edit.file, 'utf8');
        expect(text.split(edit.find).length - 1, `${edit.file}: ${edit.find}`).toBe(1);
        expect(edit.replace).not.toBe(edit.find);
      }
    },
  );
});
