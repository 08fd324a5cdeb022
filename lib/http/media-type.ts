/**
 * The put route's `Content-Type` rule: `application/json` or
 * `application/<anything>+json`, with no charset or `charset=utf-8`; a
 * missing header is read as JSON (RFC 8259 JSON is UTF-8). Anything else —
 * `text/plain`, form encoding, another charset, a header that is not a media
 * type — is a 415 naming the header: a body in another charset would
 * otherwise be stored with replaced characters.
 *
 * Parsing follows RFC 9110 §8.3.1: `type "/" subtype *( OWS ";" OWS [ name
 * "=" ( token / quoted-string ) ] )`, type, subtype and parameter names
 * case-insensitive, the charset value too (RFC 2046).
 */
import { UnsupportedMediaTypeError } from '../errors.js';

/** What the put route takes, as the 415 message says it. */
export const ACCEPTED_MEDIA_TYPES =
  'application/json or application/*+json, with no charset or charset=utf-8';

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
export function isJsonMediaType(media: MediaType): boolean {
  if (media.type !== 'application') return false;
  return media.subtype === 'json' || (media.subtype.endsWith('+json') && media.subtype.length > 5);
}

/** Throws UnsupportedMediaTypeError naming `Content-Type` unless the put route takes `header`. */
export function assertJsonContentType(header: string | undefined): void {
  if (header === undefined) return;
  const media = parseMediaType(header);
  const charset = media?.parameters.get('charset');
  if (
    media &&
    isJsonMediaType(media) &&
    (charset === undefined || charset.toLowerCase() === 'utf-8')
  ) {
    return;
  }
  throw new UnsupportedMediaTypeError('Content-Type', header, ACCEPTED_MEDIA_TYPES);
}
