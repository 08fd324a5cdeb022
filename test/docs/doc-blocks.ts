/**
 * The fenced code blocks of the docs, and how the docs test treats each
 * (README.md, "Docs that run": the info string's second word says it).
 *
 *   ```sh run / ```sql run / ```ts run   executed against a local stack's
 *                                        data folder (`./.shardwal`);
 *   ```sh check / ```sql check           not run (needs an AWS account,
 *                                        installs, or runs until Ctrl-C):
 *                                        each command and flag is checked
 *                                        against the real CLI's options.
 *
 * Every `sh` and `sql` block must say one of the two; a block without a
 * language (an output sample) and a `ts` block without `run` (API
 * signatures) are not code to run.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The docs the test reads: README.md and docs/*.md (docs/deploy.md is checked by its own tests). */
export function docFiles(repo: string): string[] {
  const docs = readdirSync(path.join(repo, 'docs'))
    .filter((name) => name.endsWith('.md') && name !== 'deploy.md')
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs.sort()];
}

/** One fenced block. */
export interface DocBlock {
  /** Repository-relative file and 1-based line of the opening fence. */
  file: string;
  line: number;
  lang: string;
  /** `run`, `check`, or undefined. */
  mode: 'run' | 'check' | undefined;
  text: string;
}

/** The fenced blocks of `file`. */
export function docBlocks(repo: string, file: string): DocBlock[] {
  const lines = readFileSync(path.join(repo, file), 'utf8').split('\n');
  const out: DocBlock[] = [];
  let open: { line: number; info: string; body: string[] } | undefined;
  lines.forEach((text, i) => {
    const fence = /^```(.*)$/.exec(text);
    if (!open) {
      if (fence) open = { line: i + 1, info: fence[1]!.trim(), body: [] };
      return;
    }
    if (text === '```') {
      const [lang = '', mode] = open.info.split(/\s+/);
      out.push({
        file,
        line: open.line,
        lang,
        mode: mode === 'run' || mode === 'check' ? mode : undefined,
        text: `${open.body.join('\n')}\n`,
      });
      open = undefined;
      return;
    }
    open.body.push(text);
  });
  return out;
}

/** A block's label in test names. */
export const blockName = (block: DocBlock) => `${block.file}:${block.line} (${block.lang})`;

/**
 * The commands of a shell block: continuation lines joined, comments
 * dropped, each pipeline and `&&`/`;` list split into argument vectors
 * (quotes honoured, no expansion).
 */
export function shellCommands(text: string): string[][] {
  const joined = text.replace(/\\\n/g, ' ');
  const commands: string[][] = [];
  for (const line of joined.split('\n')) {
    let words: string[] = [];
    let word: string | undefined;
    let quote: string | undefined;
    const end = () => {
      if (word !== undefined) words.push(word);
      word = undefined;
    };
    const flush = () => {
      end();
      if (words.length > 0) commands.push(words);
      words = [];
    };
    for (let i = 0; i < line.length; i++) {
      const c = line[i]!;
      if (quote) {
        if (c === quote) quote = undefined;
        else word = (word ?? '') + c;
      } else if (c === '"' || c === "'") {
        quote = c;
        word ??= '';
      } else if (c === '#' && word === undefined) {
        break; // a comment
      } else if (c === ' ' || c === '\t') {
        end();
      } else if (c === '|' || c === ';' || c === '&' || c === '>' || c === '<') {
        // `<name>` in a usage line is a placeholder, not a redirection.
        const placeholder = c === '<' && /^<[^>\s]+>/.exec(line.slice(i));
        if (placeholder) {
          word = (word ?? '') + placeholder[0];
          i += placeholder[0].length - 1;
          continue;
        }
        if (c === '>' || c === '<') {
          end();
          // The redirection's target is no argument.
          const target = /^\s*\S+/.exec(line.slice(i + 1));
          i += target ? target[0].length : 0;
          continue;
        }
        flush();
        if (line[i + 1] === c) i++;
      } else {
        word = (word ?? '') + c;
      }
    }
    flush();
  }
  return commands;
}
