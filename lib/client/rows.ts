/**
 * Rows as the client sends them: any JSON object, or a `RawRow` holding the
 * JSON text of one, which is sent byte for byte (numbers beyond a double's
 * precision, member order and spelling survive, as the service stores them
 * exactly as sent). Each row is serialized once; batching and the body
 * framing work on the text.
 */
import { ErrorKind } from '../errors.js';
import { RowRejectedError } from './errors.js';

/** A row: a JSON object (an interface value is fine; it goes through `JSON.stringify`). */
export type Row = object;

/** The JSON text of one object, sent as is. */
export class RawRow {
  readonly json: string;
  /** `json` must be one JSON object; only its outline is checked here, the service checks the rest. */
  constructor(json: string) {
    const text = json.trim();
    if (!text.startsWith('{') || !text.endsWith('}')) {
      throw new RowRejectedError(
        ErrorKind.invalidInput,
        `row: expected the JSON text of an object, got ${JSON.stringify(text.slice(0, 40))}`,
      );
    }
    this.json = text;
  }
}

/** Shorthand for `new RawRow(json)`. */
export function rawRow(json: string): RawRow {
  return new RawRow(json);
}

/** The JSON text of `row`; `field` names it in errors (e.g. `rows[3]`). */
export function rowText(row: Row | RawRow, field: string): string {
  if (row instanceof RawRow) return row.json;
  if (typeof row !== 'object' || row === null || Array.isArray(row)) {
    throw new RowRejectedError(
      ErrorKind.invalidInput,
      `${field}: expected a JSON object, got ${Array.isArray(row) ? 'an array' : String(row)}`,
    );
  }
  let text: string | undefined;
  try {
    text = JSON.stringify(row);
  } catch (error) {
    throw new RowRejectedError(
      ErrorKind.invalidInput,
      `${field}: not serializable as JSON: ${(error as Error).message}`,
    );
  }
  if (text === undefined || !text.startsWith('{')) {
    // A toJSON() that returns something else than an object.
    throw new RowRejectedError(ErrorKind.invalidInput, `${field}: does not serialize to an object`);
  }
  return text;
}
