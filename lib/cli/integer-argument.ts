/**
 * Numeric CLI arguments and options, read exactly by the one parser
 * (`lib/exact-integer.ts`): digits only, never rounded; a value out of range
 * is a usage error (exit 2) naming the bound.
 */
import { type IntegerBounds, MAX_SEQ, parseExactInteger } from '../exact-integer.js';
import { UsageError } from './errors.js';

/** `text` of argument `name` (e.g. `--from`, `<seq>`) as an integer within `bounds`. */
export function integerArgument(name: string, text: string, bounds: IntegerBounds): number {
  const parsed = parseExactInteger(text, bounds);
  if (!parsed.ok) throw new UsageError(`${name}: ${parsed.problem}`);
  return parsed.value;
}

/** A seq argument: 1 ..= the largest seq the service can issue. */
export function seqArgument(name: string, text: string): number {
  return integerArgument(name, text, {
    min: 1,
    max: MAX_SEQ,
    maxName: 'the largest seq the service can issue',
  });
}
