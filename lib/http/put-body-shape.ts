/**
 * How the put route reads a body, from its media type and three optional
 * query parameters:
 *
 * - `format=object|array|ndjson` says the form outright. Without it, a
 *   newline-delimited media type (`application/x-ndjson`, …) means `ndjson`,
 *   and a JSON body is an `array` when its first token is `[`, else an
 *   `object`. A `format` that contradicts the media type is a 400, never a
 *   guess: `format=ndjson` with `application/json` is allowed (shippers that
 *   label JSON Lines as JSON), `format=array` with `application/x-ndjson` is
 *   not.
 * - `rows=<member>` names the object form's member that holds the rows (a
 *   shipper that sends `{"logs": [...]}` is told `?rows=logs`); the other
 *   forms have no such member, so it is a 400 there.
 * - `key=<field>` keys the rows by that field in every form (the object
 *   form may also say it in its `key` member; both must then agree).
 */
import { InvalidInputError } from '../errors.js';
import { BodyForm, type BodyShape } from '../json/exact-put-body.js';
import { PutMediaKind } from './media-type.js';

/** The query parameters that shape the body. */
export const BodyQuery = { format: 'format', rows: 'rows', key: 'key' } as const;

const FORMS: readonly string[] = Object.values(BodyForm);
/** Longest rows member name accepted (the key field's limit). */
const MAX_ROWS_MEMBER_CHARS = 256;

/** The first char of `text` after a byte order mark and JSON whitespace. */
function firstToken(text: string): string | undefined {
  const at = text.search(/[^\uFEFF \t\n\r]/);
  return at < 0 ? undefined : text[at];
}

function formOf(format: string | undefined, media: PutMediaKind, text: string): BodyForm {
  if (format !== undefined && !FORMS.includes(format)) {
    throw new InvalidInputError(
      BodyQuery.format,
      `expected ${FORMS.join(', ')} or nothing, got ${JSON.stringify(format)}`,
    );
  }
  if (media === PutMediaKind.ndjson) {
    if (format !== undefined && format !== BodyForm.ndjson) {
      throw new InvalidInputError(
        BodyQuery.format,
        `${format} contradicts a newline-delimited Content-Type (send application/json, or drop format)`,
      );
    }
    return BodyForm.ndjson;
  }
  if (format !== undefined) return format as BodyForm;
  return firstToken(text) === '[' ? BodyForm.array : BodyForm.object;
}

/**
 * The body shape of a put: its form, the rows member, the key field (see
 * the module comment). Throws InvalidInputError naming the parameter.
 */
export function putBodyShape(
  query: Readonly<Record<string, string | undefined>> | undefined,
  media: PutMediaKind,
  text: string,
): BodyShape {
  const form = formOf(query?.[BodyQuery.format], media, text);
  const rowsMember = query?.[BodyQuery.rows];
  if (rowsMember !== undefined) {
    if (form !== BodyForm.object) {
      throw new InvalidInputError(
        BodyQuery.rows,
        `names the member of an object body that holds the rows; a body sent as ${form} has none`,
      );
    }
    if (
      rowsMember.length === 0 ||
      rowsMember.length > MAX_ROWS_MEMBER_CHARS ||
      rowsMember === 'key'
    ) {
      throw new InvalidInputError(
        BodyQuery.rows,
        `expected a member name of 1 to ${MAX_ROWS_MEMBER_CHARS} characters other than key, got ${JSON.stringify(rowsMember.slice(0, 64))}`,
      );
    }
  }
  return {
    form,
    rowsMember,
    key: query?.[BodyQuery.key],
    keyField: BodyQuery.key,
    rowsMemberHint: `?${BodyQuery.rows}=<member>`,
  };
}
