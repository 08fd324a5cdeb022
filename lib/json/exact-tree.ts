/**
 * The tree `parseExact` returns. It keeps what `JSON.parse` throws away:
 * members stay in source order as `[name, value]` pairs (duplicates are
 * refused, never resolved), numbers stay as their source text, and every
 * value can give its minified source text (the source minus insignificant
 * whitespace, escapes and number spellings kept verbatim), which is the form
 * shardwal stores.
 */

/** Where a value sits in the document's minified text: `[start, end)`. */
export interface ExactSpan {
  readonly start: number;
  readonly end: number;
}

/** An object whose members were built, in source order. */
export interface ExactObject extends ExactSpan {
  readonly kind: 'object';
  readonly members: readonly (readonly [name: string, value: ExactValue])[];
}

/** An array whose items were built. */
interface ExactArray extends ExactSpan {
  readonly kind: 'array';
  readonly items: readonly ExactValue[];
}

/** A string, decoded (escapes resolved); its source spelling is the minified text. */
interface ExactString extends ExactSpan {
  readonly kind: 'string';
  readonly value: string;
}

/** A number as its source text: never converted, so `1e400` and `-0` survive. */
interface ExactNumber extends ExactSpan {
  readonly kind: 'number';
  readonly text: string;
}

/** `true` or `false`. */
interface ExactBoolean extends ExactSpan {
  readonly kind: 'boolean';
  readonly value: boolean;
}

/** `null`. */
interface ExactNull extends ExactSpan {
  readonly kind: 'null';
}

/**
 * An object or array below the materialized levels: validated like the rest
 * (syntax, duplicates, surrogates, depth) but not built; read it as text.
 */
interface ExactRaw extends ExactSpan {
  readonly kind: 'raw';
  readonly of: 'object' | 'array';
}

/** Any value of an exact tree. */
export type ExactValue =
  | ExactObject
  | ExactArray
  | ExactString
  | ExactNumber
  | ExactBoolean
  | ExactNull
  | ExactRaw;

/** A validated JSON text: its tree and, on demand, its minified text. */
export class ExactDocument {
  /** The text as given. */
  readonly source: string;
  /** The top-level value. */
  readonly root: ExactValue;
  // Insignificant whitespace runs of the source as flat [start, end) pairs.
  readonly #whitespace: readonly number[];
  #minified: string | undefined;

  constructor(source: string, root: ExactValue, whitespace: readonly number[]) {
    this.source = source;
    this.root = root;
    this.#whitespace = whitespace;
  }

  /**
   * The whole text minified; spans index into it. Built once, on first use,
   * and only when the source had whitespace: otherwise it is the source.
   */
  get minifiedText(): string {
    if (this.#minified === undefined) {
      const runs = this.#whitespace;
      if (runs.length === 0) {
        this.#minified = this.source;
      } else {
        // Concatenation builds a rope that V8 flattens once, on first read: cheaper than join.
        let text = '';
        let from = 0;
        for (let i = 0; i < runs.length; i += 2) {
          text += this.source.slice(from, runs[i]);
          from = runs[i + 1]!;
        }
        this.#minified = text + this.source.slice(from);
      }
    }
    return this.#minified;
  }

  /** The minified source text of `value` (a value of this document). */
  minified(value: ExactSpan): string {
    return this.minifiedText.slice(value.start, value.end);
  }
}

/** The value of member `name` of `object`, or undefined. */
export function memberOf(object: ExactObject, name: string): ExactValue | undefined {
  for (const [memberName, value] of object.members) if (memberName === name) return value;
  return undefined;
}
