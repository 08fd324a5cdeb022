/**
 * The put route's `Content-Encoding` rule: `gzip` (or its old alias
 * `x-gzip`, RFC 9110 §8.4.1.3) and `identity`; any other coding is a 415
 * naming the header. Codings are listed in the order they were applied, so
 * they are undone last to first.
 */
import { UnsupportedMediaTypeError } from '../errors.js';

/** Content codings the put route undoes. */
export const ContentCoding = { gzip: 'gzip' } as const;
export type ContentCoding = (typeof ContentCoding)[keyof typeof ContentCoding];

/** What the put route takes, as the 415 message says it. */
const ACCEPTED_CONTENT_ENCODINGS = 'gzip or identity';

/**
 * The codings of a `Content-Encoding` header, in the order applied, without
 * `identity`; empty for a missing header. Throws UnsupportedMediaTypeError
 * naming `Content-Encoding` for a coding the route cannot undo.
 */
export function parseContentEncoding(header: string | undefined): ContentCoding[] {
  if (header === undefined) return [];
  const codings: ContentCoding[] = [];
  for (const element of header.split(',')) {
    const coding = element.trim().toLowerCase();
    // The list syntax allows empty elements (RFC 9110 §5.6.1).
    if (coding === '' || coding === 'identity') continue;
    if (coding === 'gzip' || coding === 'x-gzip') codings.push(ContentCoding.gzip);
    else
      throw new UnsupportedMediaTypeError('Content-Encoding', header, ACCEPTED_CONTENT_ENCODINGS);
  }
  return codings;
}
