/**
 * Writing lines that carry JSON text verbatim: a field whose value is a
 * `RawJson` is written as its text, every other field through
 * `JSON.stringify`, in the order given. The caller guarantees the raw text is
 * one valid, minified JSON value (rows come from `lib/json`, key ids from
 * `key-id.ts`), so the line is valid JSON.
 */

/** JSON text to write as is. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** `{"name":value,...}` with `RawJson` values spliced in, no whitespace, no newline. */
export function stringifyLine(fields: Record<string, unknown>): string {
  let raw = false;
  for (const value of Object.values(fields)) {
    if (value instanceof RawJson) {
      raw = true;
      break;
    }
  }
  if (!raw) return JSON.stringify(fields);
  let line = '{';
  let first = true;
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    line += `${first ? '' : ','}${JSON.stringify(name)}:${value instanceof RawJson ? value.text : JSON.stringify(value)}`;
    first = false;
  }
  return `${line}}`;
}
