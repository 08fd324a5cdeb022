/**
 * Exact (lossless) JSON for the put path.
 *
 * Contract of `lib/json/`:
 * 1. A value is stored as its minified source: the text as sent minus
 *    insignificant whitespace (space, tab, CR, LF between tokens). Number
 *    spellings and string escapes are kept verbatim, so members keep their
 *    names, order and values, numbers their exact decimal value (`1e400`,
 *    `-0`, 20-digit ids), strings their code points.
 * 2. Refused with a typed invalid-input error naming the JSON path, the
 *    problem and the char (or byte) offset: anything RFC 8259 does not allow;
 *    duplicate member names in one object (compared decoded); surrogates
 *    that are not half of a pair, escaped or raw; nesting past a limit;
 *    ill-formed UTF-8; a leading byte order mark unless told to skip it.
 * 3. Numbers are never converted. They compare by exact decimal value
 *    through `canonicalNumber` (`1E2` = `100`, `-0` = `0`); keys compare by
 *    type and value (`"1"` ≠ `1`).
 * 4. Parsing is iterative: depth is bounded by the limit, never by the
 *    stack.
 */
/**
 * `parseExact`: a strict RFC 8259 parser that loses nothing. Unlike
 * `JSON.parse` it keeps numbers as source text, keeps member order, refuses
 * duplicate member names (compared decoded), lone surrogates, and nesting
 * past a limit, and records where insignificant whitespace was so every
 * value's minified source text is one slice away.
 *
 * It is iterative (an explicit stack, no recursion), so a 5,000-deep text is
 * refused with a typed error, never a stack overflow. Containers deeper than
 * `materializeDepth` are validated in full but not built: the put path needs
 * only the body, its `rows`, and each row's top-level members.
 */
import { InternalError } from '../errors.js';
import { InvalidJsonError, JsonProblem } from './errors.js';
import type { ExactValue } from './exact-tree.js';
import { ExactDocument } from './exact-tree.js';
import { describeChar, ScanFault } from './scan-fault.js';
import { scanNumber } from './scan-number.js';
import { type DecodedString, scanString } from './scan-string.js';

/** Limits and defaults of `parseExact`. */
const ExactParseDefaults = {
  /** Deepest nesting of objects and arrays accepted; the outermost container is level 1. */
  maxDepth: 1000,
  /** Name of the root in error paths. */
  root: 'body',
} as const;

/** Objects with more members than this check duplicates with a Set; smaller ones scan (faster). */
const DUPLICATE_SET_THRESHOLD = 16;

/** What to do with a leading U+FEFF (byte order mark): RFC 8259 lets a parser ignore it. */
export const BomPolicy = { refuse: 'refuse', ignore: 'ignore' } as const;
export type BomPolicy = (typeof BomPolicy)[keyof typeof BomPolicy];

/** Options of `parseExact`. */
export interface ParseExactOptions {
  /** Deepest nesting of objects and arrays accepted (outermost is level 1); an integer ≥ 0. */
  maxDepth?: number;
  /**
   * Objects and arrays at levels ≤ this are built; deeper ones become `raw`
   * nodes (validated, read as text). Default: everything is built.
   */
  materializeDepth?: number;
  /** Name of the root in error paths (`body` gives `body.rows[3].id`). */
  root?: string;
  /** A leading U+FEFF: refused (default) or skipped. */
  bom?: BomPolicy;
}

const OBJECT = 0;
const ARRAY = 1;

/** The parser's state; one instance per call. */
class ExactParser {
  readonly text: string;
  readonly maxDepth: number;
  readonly materializeDepth: number;
  /** Insignificant whitespace runs, flat [start, end) pairs. */
  readonly whitespace: number[] = [];
  /** Whitespace chars skipped so far: source offset − removed = minified offset. */
  removed = 0;
  /** True while the fault being scanned belongs to the current member or item. */
  inValue = false;
  /** Source offset after the last scalar `scalar` read. */
  end = 0;

  // The container stack, one slot per open object or array.
  depth = 0;
  readonly frameKind: number[] = [];
  readonly frameStart: number[] = [];
  readonly frameItems: (unknown[] | null)[] = [];
  /** Current member name (objects) or item index (arrays): the path. */
  readonly frameAt: (string | number)[] = [];
  readonly frameNamesBase: number[] = [];
  readonly frameNameSet: (Set<string> | null)[] = [];
  // Member names of the open objects, for duplicate checks.
  readonly names: string[] = [];
  namesLength = 0;
  readonly decoded: DecodedString = { value: '' };

  constructor(text: string, maxDepth: number, materializeDepth: number) {
    this.text = text;
    this.maxDepth = maxDepth;
    this.materializeDepth = materializeDepth;
  }

  /** Skips insignificant whitespace at `pos`, recording the run; returns the next offset. */
  skipWhitespace(pos: number): number {
    const text = this.text;
    let c = text.charCodeAt(pos);
    if (c > 0x20) return pos;
    let end = pos;
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = text.charCodeAt(++end);
    if (end > pos) {
      this.whitespace.push(pos, end);
      this.removed += end - pos;
    }
    return end;
  }

  /** Opens a container at `pos` (its bracket). */
  open(kind: number, pos: number): void {
    const depth = this.depth;
    if (depth >= this.maxDepth) {
      throw new ScanFault(JsonProblem.tooDeep, `nested deeper than ${this.maxDepth} levels`, pos);
    }
    this.frameKind[depth] = kind;
    this.frameStart[depth] = pos - this.removed;
    this.frameItems[depth] = depth < this.materializeDepth ? [] : null;
    this.frameAt[depth] = kind === ARRAY ? 0 : '';
    this.frameNamesBase[depth] = this.namesLength;
    this.frameNameSet[depth] = null;
    this.depth = depth + 1;
  }

  /** Closes the top container; `end` is the source offset after its bracket. */
  close(end: number): ExactValue | null {
    const top = --this.depth;
    const items = this.frameItems[top] ?? null;
    const start = this.frameStart[top]!;
    const minEnd = end - this.removed;
    const kind = this.frameKind[top];
    if (kind === OBJECT) {
      this.namesLength = this.frameNamesBase[top]!;
      this.frameNameSet[top] = null;
    }
    this.frameItems[top] = null;
    if (items !== null) {
      return kind === OBJECT
        ? { kind: 'object', members: items as [string, ExactValue][], start, end: minEnd }
        : { kind: 'array', items: items as ExactValue[], start, end: minEnd };
    }
    if (top === 0 || this.frameItems[top - 1] !== null) {
      return { kind: 'raw', of: kind === OBJECT ? 'object' : 'array', start, end: minEnd };
    }
    return null;
  }

  /** Reads a member name at `pos` and the colon after it; returns where the value starts. */
  memberName(pos: number): number {
    const text = this.text;
    if (text.charCodeAt(pos) !== 0x22) {
      throw new ScanFault(
        JsonProblem.syntax,
        `expected a member name in double quotes, got ${describeChar(text, pos)}`,
        pos,
      );
    }
    const end = scanString(text, pos, this.decoded);
    const name = this.decoded.value;
    const top = this.depth - 1;
    this.frameAt[top] = name;
    this.checkDuplicate(top, name, pos);
    const colon = this.skipWhitespace(end);
    if (text.charCodeAt(colon) !== 0x3a) {
      this.inValue = true;
      throw new ScanFault(
        JsonProblem.syntax,
        `expected ':' after a member name, got ${describeChar(text, colon)}`,
        colon,
      );
    }
    return this.skipWhitespace(colon + 1);
  }

  /** Refuses `name` if the object at `top` already has it; else records it. */
  checkDuplicate(top: number, name: string, pos: number): void {
    const names = this.names;
    const base = this.frameNamesBase[top]!;
    let set = this.frameNameSet[top] ?? null;
    if (set === null) {
      for (let i = base; i < this.namesLength; i++) {
        if (names[i] === name) this.duplicate(name, pos);
      }
      if (this.namesLength - base >= DUPLICATE_SET_THRESHOLD) {
        set = new Set(names.slice(base, this.namesLength));
        this.frameNameSet[top] = set;
      }
    } else if (set.has(name)) {
      this.duplicate(name, pos);
    }
    set?.add(name);
    names[this.namesLength++] = name;
  }

  duplicate(name: string, pos: number): never {
    this.inValue = true;
    throw new ScanFault(
      JsonProblem.duplicateMember,
      `duplicate member ${JSON.stringify(name)}`,
      pos,
    );
  }

  /** Parses the scalar at `pos`; `build` says whether to return a node. Sets `this.end`. */
  scalar(pos: number, build: boolean): ExactValue | null {
    const text = this.text;
    const c = text.charCodeAt(pos);
    const start = pos - this.removed;
    if (c === 0x22) {
      const end = scanString(text, pos, build ? this.decoded : undefined);
      this.end = end;
      return build
        ? { kind: 'string', value: this.decoded.value, start, end: end - this.removed }
        : null;
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      const end = scanNumber(text, pos);
      this.end = end;
      return build
        ? { kind: 'number', text: text.slice(pos, end), start, end: end - this.removed }
        : null;
    }
    if (c === 0x74 && text.startsWith('true', pos)) {
      this.end = pos + 4;
      return build ? { kind: 'boolean', value: true, start, end: start + 4 } : null;
    }
    if (c === 0x66 && text.startsWith('false', pos)) {
      this.end = pos + 5;
      return build ? { kind: 'boolean', value: false, start, end: start + 5 } : null;
    }
    if (c === 0x6e && text.startsWith('null', pos)) {
      this.end = pos + 4;
      return build ? { kind: 'null', start, end: start + 4 } : null;
    }
    throw new ScanFault(
      JsonProblem.syntax,
      `expected a JSON value, got ${describeChar(text, pos)}`,
      pos,
    );
  }

  /** Parses the whole text from `pos`. */
  parse(pos: number): ExactValue {
    const text = this.text;
    const length = text.length;
    pos = this.skipWhitespace(pos);
    for (;;) {
      // A value starts at `pos`.
      this.inValue = true;
      let value: ExactValue | null;
      const c = text.charCodeAt(pos);
      if (c === 0x7b || c === 0x5b) {
        const kind = c === 0x7b ? OBJECT : ARRAY;
        this.open(kind, pos);
        this.inValue = false;
        pos = this.skipWhitespace(pos + 1);
        const next = text.charCodeAt(pos);
        if (next === (kind === OBJECT ? 0x7d : 0x5d)) {
          value = this.close(pos + 1);
          pos++;
        } else {
          if (kind === OBJECT) pos = this.memberName(pos);
          continue;
        }
      } else {
        const parentBuilds = this.depth === 0 || this.frameItems[this.depth - 1] !== null;
        value = this.scalar(pos, parentBuilds);
        pos = this.end;
      }
      // After a value: attach it, then close containers until one continues.
      for (;;) {
        this.inValue = false;
        const top = this.depth - 1;
        if (top < 0) {
          pos = this.skipWhitespace(pos);
          if (pos < length) {
            throw new ScanFault(
              JsonProblem.syntax,
              `unexpected ${describeChar(text, pos)} after the top-level value`,
              pos,
            );
          }
          return value!;
        }
        const items = this.frameItems[top] ?? null;
        const kind = this.frameKind[top];
        if (items !== null) {
          if (kind === OBJECT) items.push([this.frameAt[top], value]);
          else items.push(value);
        }
        pos = this.skipWhitespace(pos);
        const next = text.charCodeAt(pos);
        if (next === 0x2c) {
          pos = this.skipWhitespace(pos + 1);
          if (kind === OBJECT) pos = this.memberName(pos);
          else this.frameAt[top] = (this.frameAt[top] as number) + 1;
          break;
        }
        if (next === (kind === OBJECT ? 0x7d : 0x5d)) {
          value = this.close(pos + 1);
          pos++;
          continue;
        }
        throw new ScanFault(
          JsonProblem.syntax,
          kind === OBJECT
            ? `expected ',' or '}' after a member, got ${describeChar(text, pos)}`
            : `expected ',' or ']' after an item, got ${describeChar(text, pos)}`,
          pos,
        );
      }
    }
  }

  /** The path to where the parser stopped. */
  path(): (string | number)[] {
    const depth = this.inValue ? this.depth : this.depth - 1;
    return this.frameAt.slice(0, Math.max(depth, 0));
  }
}

/**
 * Parses `text` as exactly one JSON value (RFC 8259, strictly) and returns
 * its exact tree. Throws InvalidJsonError naming the path, the problem and
 * the char offset.
 */
export function parseExact(text: string, options: ParseExactOptions = {}): ExactDocument {
  const maxDepth = options.maxDepth ?? ExactParseDefaults.maxDepth;
  const materializeDepth = options.materializeDepth ?? maxDepth;
  // A NaN limit would compare false and silently disable the depth check.
  if (!Number.isSafeInteger(maxDepth) || maxDepth < 0 || !Number.isSafeInteger(materializeDepth)) {
    throw new InternalError(
      `parseExact: maxDepth and materializeDepth must be integers ≥ 0, got ${maxDepth} and ${materializeDepth}`,
    );
  }
  const parser = new ExactParser(text, maxDepth, materializeDepth);
  const root = options.root ?? ExactParseDefaults.root;
  let start = 0;
  try {
    if (text.charCodeAt(0) === 0xfeff) {
      if (options.bom !== BomPolicy.ignore) {
        throw new ScanFault(JsonProblem.syntax, 'unexpected byte order mark (U+FEFF)', 0);
      }
      // The mark is not part of the value: drop it like whitespace.
      parser.whitespace.push(0, 1);
      parser.removed = 1;
      start = 1;
    }
    const value = parser.parse(start);
    return new ExactDocument(text, value, parser.whitespace);
  } catch (error) {
    if (!(error instanceof ScanFault)) throw error;
    throw new InvalidJsonError(root, parser.path(), error.problem, error.detail, error.offset);
  }
}
