/**
 * The shared half of the expression parsers: a token cursor, document paths
 * (with `#name` resolution and the reserved-word rule), `:value` placeholders,
 * and DynamoDB's error reporting: a syntax error at once, semantic errors
 * (reserved word, undefined name, bad function use, overlapping paths)
 * after the whole expression parsed, the most important kind first.
 */
import type { PathOperand, ValueOperand } from './expression-ast.js';
import { type Token, tokenize } from './expression-lexer.js';
import { isReservedWord } from './reserved-words.js';
import { validationError } from './sdk-errors.js';

/** Kinds of semantic error, in the order DynamoDB reports them when several apply. */
const ERROR_ORDER = [
  'parens',
  'unknownFunction',
  'misusedFunction',
  'reserved',
  'name',
  'operand',
  'paths',
] as const;
type SemanticError = (typeof ERROR_ORDER)[number];

/** A parser position to come back to, with what was recorded since. */
export interface ReaderMark {
  at: number;
  errors: Map<SemanticError, string>;
  names: Set<string>;
  values: Set<string>;
}

/** A cursor over one expression's tokens. */
export class ExpressionReader {
  readonly label: string;
  /** `#name` placeholders used. */
  readonly names = new Set<string>();
  /** `:value` placeholders used. */
  readonly values = new Set<string>();
  readonly #text: string;
  readonly #tokens: Token[];
  readonly #attributeNames: Record<string, string> | undefined;
  #errors = new Map<SemanticError, string>();
  /** Token spans of parenthesized groups, `open:close`, to spot redundant parentheses. */
  readonly #groups = new Set<string>();
  #at = 0;

  constructor(text: string, label: string, attributeNames: Record<string, string> | undefined) {
    if (text === '') throw validationError(`Invalid ${label}: The expression can not be empty;`);
    this.label = label;
    this.#text = text;
    this.#tokens = tokenize(text, label);
    this.#attributeNames = attributeNames;
  }

  /** Index of the next token. */
  get position(): number {
    return this.#at;
  }

  /** Remembers the current position, for a parse that may have to be undone. */
  mark(): ReaderMark {
    return {
      at: this.#at,
      errors: new Map(this.#errors),
      names: new Set(this.names),
      values: new Set(this.values),
    };
  }

  /** Goes back to `mark`, forgetting what was recorded since. */
  reset(mark: ReaderMark): void {
    this.#at = mark.at;
    this.#errors = new Map(mark.errors);
    this.names.clear();
    for (const name of mark.names) this.names.add(name);
    this.values.clear();
    for (const value of mark.values) this.values.add(value);
  }

  /** Records a parenthesized group; DynamoDB refuses a group that only wraps another. */
  group(open: number, close: number): void {
    if (this.#groups.has(`${open + 1}:${close - 1}`)) {
      this.defer('parens', 'The expression has redundant parentheses;');
    }
    this.#groups.add(`${open}:${close}`);
  }

  /** The token `offset` ahead. */
  peek(offset = 0): Token {
    return this.#tokens[Math.min(this.#at + offset, this.#tokens.length - 1)]!;
  }

  /** Consumes one token. */
  next(): Token {
    const token = this.peek();
    if (this.#at < this.#tokens.length - 1) this.#at++;
    return token;
  }

  /** True when the next token is the keyword `word` (any case). */
  atKeyword(word: string, offset = 0): boolean {
    const token = this.peek(offset);
    return token.kind === 'word' && token.text.toUpperCase() === word;
  }

  /** True when the next token is `symbol`. */
  atSymbol(symbol: string, offset = 0): boolean {
    const token = this.peek(offset);
    return token.kind === 'symbol' && token.text === symbol;
  }

  /** Consumes `symbol` if it is next. */
  acceptSymbol(symbol: string): boolean {
    if (!this.atSymbol(symbol)) return false;
    this.next();
    return true;
  }

  /** Consumes `symbol` or fails with a syntax error. */
  expectSymbol(symbol: string): void {
    if (!this.acceptSymbol(symbol)) this.fail();
  }

  /** Consumes the keyword `word` or fails with a syntax error. */
  expectKeyword(word: string): void {
    if (!this.atKeyword(word)) this.fail();
    this.next();
  }

  /** Throws DynamoDB's syntax error at the next token. */
  fail(): never {
    const token = this.peek();
    const near = this.#text.slice(Math.max(0, token.at - 8), token.at + token.text.length + 8);
    throw validationError(
      `Invalid ${this.label}: Syntax error; token: "${token.text}", near: "${near.trim()}"`,
    );
  }

  /** Records a semantic error; the first of each kind is kept. */
  defer(kind: SemanticError, message: string): void {
    if (!this.#errors.has(kind)) this.#errors.set(kind, message);
  }

  /** Expects the end of input, then throws the most important semantic error if any. */
  finish(): void {
    if (this.peek().kind !== 'end') this.fail();
    for (const kind of ERROR_ORDER) {
      const message = this.#errors.get(kind);
      if (message) throw validationError(`Invalid ${this.label}: ${message}`);
    }
  }

  /** A `:value` placeholder. */
  value(): ValueOperand {
    const token = this.next();
    if (token.kind !== 'value') {
      this.#at--;
      this.fail();
    }
    this.values.add(token.text);
    return { kind: 'value', name: token.text };
  }

  /** A document path: `a`, `#n`, `a.b`, `a[0]`, `#n.b[2].c`. */
  path(): PathOperand {
    const start = this.peek();
    const elements: (string | number)[] = [this.#attributeName()];
    for (;;) {
      if (this.acceptSymbol('.')) {
        elements.push(this.#attributeName());
      } else if (this.acceptSymbol('[')) {
        const index = this.next();
        if (index.kind !== 'integer') {
          this.#at--;
          this.fail();
        }
        elements.push(Number(index.text));
        this.expectSymbol(']');
      } else {
        break;
      }
    }
    const end = this.#tokens[this.#at - 1]!;
    return { kind: 'path', elements, text: this.#text.slice(start.at, end.at + end.text.length) };
  }

  #attributeName(): string {
    const token = this.next();
    // An attribute name starts with a letter (function names may start with `_`).
    if (token.kind === 'word' && token.text[0] !== '_') {
      if (isReservedWord(token.text)) {
        this.defer(
          'reserved',
          `Attribute name is a reserved keyword; reserved keyword: ${token.text}`,
        );
      }
      return token.text;
    }
    if (token.kind === 'name') {
      this.names.add(token.text);
      const resolved = this.#attributeNames?.[token.text];
      if (resolved === undefined) {
        this.defer(
          'name',
          `An expression attribute name used in the document path is not defined; attribute name: ${token.text}`,
        );
        return token.text;
      }
      return resolved;
    }
    this.#at--;
    return this.fail();
  }
}

/** How two paths of one expression relate: DynamoDB refuses overlaps and conflicts. */
export function checkDistinctPaths(reader: ExpressionReader, paths: PathOperand[]): void {
  for (let i = 0; i < paths.length; i++) {
    for (let j = 0; j < i; j++) {
      const problem = pathClash(paths[j]!.elements, paths[i]!.elements);
      if (problem) {
        reader.defer(
          'paths',
          `Two document paths ${problem} with each other; must remove or rewrite one of these paths; path one: ${show(paths[j]!)}, path two: ${show(paths[i]!)}`,
        );
        return;
      }
    }
  }
}

function pathClash(a: (string | number)[], b: (string | number)[]): string | undefined {
  for (let i = 0; i < a.length && i < b.length; i++) {
    if (typeof a[i] !== typeof b[i]) return 'conflict';
    if (a[i] !== b[i]) return undefined;
  }
  return 'overlap';
}

function show(path: PathOperand): string {
  return `[${path.elements.map((e) => (typeof e === 'number' ? `[${e}]` : e)).join(', ')}]`;
}
