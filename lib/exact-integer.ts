/**
 * The one parser of decimal integers the outside world hands shardwal as
 * text: HTTP path and query parameters, CLI arguments and options. JavaScript's
 * `Number("9007199254740993")` answers 9007199254740992 and
 * `Number("1".repeat(400))` answers `Infinity`, so a parameter read that way
 * names a seq nobody asked about. This parser reads digits only (no sign,
 * point, exponent, space or `0x`), compares them with the bound as text, and
 * converts only a value that is at most the bound, which is at most
 * `Number.MAX_SAFE_INTEGER`: the value returned is exactly the one sent, or
 * the caller gets a problem naming the bound that was crossed.
 */

/**
 * The largest seq (and WAL position, row offset, count) the service can
 * issue or name exactly: 2^53 − 1. Cursors are JavaScript numbers and every
 * format (`docs/wal-format.md`: "Integer") stops here.
 */
export const MAX_SEQ = Number.MAX_SAFE_INTEGER;

/** Bounds of an accepted integer, both inclusive; `max` at most `MAX_SEQ`. */
export interface IntegerBounds {
  min: number;
  max: number;
  /** What `max` is, for the message (default: "the largest accepted"). */
  maxName?: string;
}

/** The value, or the problem with the text (no field name: the caller adds it). */
export type IntegerParse = { ok: true; value: number } | { ok: false; problem: string };

/** Longest text quoted back in a problem: the rest is summarised by its length. */
const QUOTED_CHARS = 40;

/** `text` quoted for a message, shortened when long (a 400-digit value is named by its length). */
export function quoteParameter(text: string): string {
  if (text.length <= QUOTED_CHARS) return JSON.stringify(text);
  return `${JSON.stringify(text.slice(0, QUOTED_CHARS))}… (${text.length} characters)`;
}

/** Reads `text` as a decimal integer within `bounds`, exactly (see the module comment). */
export function parseExactInteger(text: string, bounds: IntegerBounds): IntegerParse {
  if (bounds.max > MAX_SEQ || bounds.min > bounds.max) {
    throw new RangeError(`bounds [${bounds.min}, ${bounds.max}] are not within [0, ${MAX_SEQ}]`);
  }
  const range = `an integer from ${bounds.min} to ${bounds.max}`;
  if (!/^[0-9]+$/.test(text)) {
    return { ok: false, problem: `expected ${range} (digits only), got ${quoteParameter(text)}` };
  }
  const digits = text.replace(/^0+(?=.)/, '');
  const maxDigits = String(bounds.max);
  // Same length: lexicographic order of digit strings is numeric order.
  const above =
    digits.length > maxDigits.length || (digits.length === maxDigits.length && digits > maxDigits);
  if (above) {
    return {
      ok: false,
      problem: `${quoteParameter(text)} is above ${bounds.maxName ?? 'the largest accepted'}, ${bounds.max}`,
    };
  }
  const value = Number(digits);
  if (value < bounds.min) {
    return { ok: false, problem: `expected ${range}, got ${quoteParameter(text)}` };
  }
  return { ok: true, value };
}
