/**
 * The put route's `Content-Type` rule: `application/json` or
 * `application/<anything>+json` (a JSON body: an object or an array of
 * rows), or one of the newline-delimited JSON names (`NDJSON_SUBTYPES`: one
 * row per line), with no charset or `charset=utf-8`; a missing header is
 * read as JSON (RFC 8259 JSON is UTF-8). Anything else —
 * `text/plain`, form encoding, another charset, a header that is not a media
 * type — is a 415 naming the header: a body in another charset would
 * otherwise be stored with replaced characters.
 *
 * Parsing follows RFC 9110 §8.3.1: `type "/" subtype *( OWS ";" OWS [ name
 * "=" ( token / quoted-string ) ] )`, type, subtype and parameter names
 * case-insensitive, the charset value too (RFC 2046).
 */
import { UnsupportedMediaTypeError } from '../errors.js';

/**
 * Subtypes of `application/` that name newline-delimited JSON. None is
 * registered with IANA; these are the names shippers and libraries send
 * (`x-ndjson`: Vector, Fluentd, Fluent Bit's json_lines since 3.0; `jsonl`
 * and `jsonlines`: the JSON Lines site's suggestions). `application/json-seq`
 * (RFC 7464) is not one of them: it separates records with U+001E, and no
 * common shipper sends it.
 */
export const NDJSON_SUBTYPES = [
  'x-ndjson',
  'ndjson',
  'jsonl',
  'x-jsonl',
  'jsonlines',
  'x-jsonlines',
] as const;

/** How a put body's media type says to read it: one JSON value, or JSON per line. */
export const PutMediaKind = { json: 'json', ndjson: 'ndjson' } as const;
export type PutMediaKind = (typeof PutMediaKind)[keyof typeof PutMediaKind];

/** What the put route takes, as the 415 message says it. */
const ACCEPTED_MEDIA_TYPES = `application/json or application/*+json, or newline-delimited JSON as application/${NDJSON_SUBTYPES.join(', application/')}; with no charset or charset=utf-8`;

/** A parsed media type: lowercase type and subtype, parameters by lowercase name. */
export interface MediaType {
  type: string;
  subtype: string;
  parameters: ReadonlyMap<string, string>;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const OWS = /^[ \t]*/;

/** Reads a quoted-string starting at `text[at]` (a `"`); its value and the offset after it. */
function quotedString(text: string, at: number): { value: string; end: number } | undefined {
  let value = '';
  for (let i = at + 1; i < text.length; i++) {
    const char = text[i]!;
    if (char === '"') return { value, end: i + 1 };
    if (char === '\\') {
      i++;
      if (i >= text.length) return undefined;
      value += text[i];
    } else {
      value += char;
    }
  }
  return undefined;
}

/** Parses a media type, or undefined when `text` is not one (RFC 9110 §8.3.1). */
export function parseMediaType(text: string): MediaType | undefined {
  const semicolon = text.indexOf(';');
  const essence = (semicolon < 0 ? text : text.slice(0, semicolon)).trim();
  const slash = essence.indexOf('/');
  const type = essence.slice(0, slash);
  const subtype = essence.slice(slash + 1);
  if (slash < 0 || !TOKEN.test(type) || !TOKEN.test(subtype)) return undefined;
  const parameters = new Map<string, string>();
  let at = semicolon < 0 ? text.length : semicolon;
  while (at < text.length) {
    // `at` is on a ";": skip it and the whitespace after it; an empty parameter is allowed.
    at += 1;
    at += OWS.exec(text.slice(at))![0].length;
    if (at >= text.length || text[at] === ';') continue;
    const equals = text.indexOf('=', at);
    if (equals < 0) return undefined;
    const name = text.slice(at, equals).toLowerCase();
    if (!TOKEN.test(name)) return undefined;
    let value: string;
    if (text[equals + 1] === '"') {
      const quoted = quotedString(text, equals + 1);
      if (quoted === undefined) return undefined;
      value = quoted.value;
      at = quoted.end;
    } else {
      const end = text.indexOf(';', equals);
      const raw = text.slice(equals + 1, end < 0 ? text.length : end).replace(/[ \t]+$/, '');
      if (!TOKEN.test(raw)) return undefined;
      value = raw;
      at = equals + 1 + raw.length;
    }
    // Two values for one parameter (say two charsets) cannot both be honoured.
    if (parameters.has(name)) return undefined;
    parameters.set(name, value);
    at += OWS.exec(text.slice(at))![0].length;
    if (at < text.length && text[at] !== ';') return undefined;
  }
  return { type: type.toLowerCase(), subtype: subtype.toLowerCase(), parameters };
}

/** True for `application/json` and `application/<something>+json`. */
function isJsonMediaType(media: MediaType): boolean {
  if (media.type !== 'application') return false;
  return media.subtype === 'json' || (media.subtype.endsWith('+json') && media.subtype.length > 5);
}

/** True for the newline-delimited JSON media types (`NDJSON_SUBTYPES`). */
function isNdjsonMediaType(media: MediaType): boolean {
  return (
    media.type === 'application' && (NDJSON_SUBTYPES as readonly string[]).includes(media.subtype)
  );
}

/**
 * How to read a put body of Content-Type `header`; throws
 * UnsupportedMediaTypeError naming `Content-Type` unless the put route takes it.
 */
export function putMediaKind(header: string | undefined): PutMediaKind {
  if (header === undefined) return PutMediaKind.json;
  const media = parseMediaType(header);
  const charset = media?.parameters.get('charset');
  if (media && (charset === undefined || charset.toLowerCase() === 'utf-8')) {
    if (isJsonMediaType(media)) return PutMediaKind.json;
    if (isNdjsonMediaType(media)) return PutMediaKind.ndjson;
  }
  throw new UnsupportedMediaTypeError('Content-Type', header, ACCEPTED_MEDIA_TYPES);
}
