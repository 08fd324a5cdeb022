/**
 * Tokens of DynamoDB's expression languages (condition, update, projection).
 * Keywords (AND, OR, NOT, BETWEEN, IN, SET, REMOVE, ADD, DELETE) arrive as
 * words; the parsers decide, case-insensitively, what a word is.
 */
import { validationError } from './sdk-errors.js';

/** What a token is. */
type TokenKind = 'word' | 'name' | 'value' | 'integer' | 'symbol' | 'end';

/** One token and where it starts. */
export interface Token {
  kind: TokenKind;
  text: string;
  at: number;
}

const SYMBOLS = ['<>', '<=', '>=', '(', ')', ',', '.', '[', ']', '=', '<', '>', '+', '-'];
const WORD = /[A-Za-z_][A-Za-z0-9_]*/y;
const PLACEHOLDER = /[#:][A-Za-z0-9_]+/y;
const INTEGER = /[0-9]+/y;
const SPACE = /\s+/y;

/** Splits `text`; `label` names the expression in errors (e.g. "ConditionExpression"). */
export function tokenize(text: string, label: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  const sticky = (pattern: RegExp): string | undefined => {
    pattern.lastIndex = at;
    return pattern.exec(text)?.[0];
  };
  while (at < text.length) {
    const space = sticky(SPACE);
    if (space) {
      at += space.length;
      continue;
    }
    const start = at;
    const placeholder = sticky(PLACEHOLDER);
    const word = placeholder ? undefined : sticky(WORD);
    const integer = placeholder || word ? undefined : sticky(INTEGER);
    const symbol =
      placeholder || word || integer ? undefined : SYMBOLS.find((s) => text.startsWith(s, at));
    const match = placeholder ?? word ?? integer ?? symbol;
    if (match === undefined) {
      throw validationError(
        `Invalid ${label}: Syntax error; token: "${text[at]}", near: "${text.slice(Math.max(0, at - 5), at + 5)}"`,
      );
    }
    const kind: TokenKind = placeholder
      ? placeholder.startsWith('#')
        ? 'name'
        : 'value'
      : word
        ? 'word'
        : integer
          ? 'integer'
          : 'symbol';
    tokens.push({ kind, text: match, at: start });
    at += match.length;
  }
  tokens.push({ kind: 'end', text: '<EOF>', at: text.length });
  return tokens;
}
