/**
 * The put body as the handler reads it from an API Gateway proxy event
 * (HTTP API payload 2.0, or REST API payload 1.0: `proxy-event.ts`),
 * byte-exact:
 *
 * 1. `Content-Type` and `Content-Encoding` are checked first (415 naming the
 *    header: `media-type.ts`, `content-encoding.ts`), before any byte is read;
 *    the Content-Type also says whether the text is one JSON value or JSON
 *    per line.
 * 2. API Gateway hands Lambda a body as text (`isBase64Encoded: false`) or as
 *    base64 of the bytes sent (`true`); which one it picks follows the
 *    request's Content-Type (docs/openapi.yaml, "Transport"). Both are read:
 *    base64 is decoded to the bytes, text is taken as it is (it is already
 *    the decoded characters, a leading byte order mark included).
 * 3. The size as sent is bounded by `SHARDWAL_MAX_BODY_BYTES` (413 naming it);
 *    a gzip body is inflated with its decoded size bounded by
 *    `SHARDWAL_MAX_DECODED_BODY_BYTES`, stopping at the limit (413 naming it).
 * 4. Bytes are decoded as strict UTF-8: ill-formed bytes are a 400 naming the
 *    offset, never replaced.
 * 5. A leading BOM reaches `parsePutText`, which skips it, so the same bytes
 *    get the same answer whichever way API Gateway delivered them, and the
 *    same answer locally (the local gateway passes bodies the same two ways).
 * A compressed body that arrived as text cannot be the bytes sent (gzip data
 * is not text), so it is a 415 naming Content-Encoding, never a guess.
 */
import { SETTINGS } from '../config.js';
import { PayloadTooLargeError, UnsupportedMediaTypeError } from '../errors.js';
import { decodeUtf8Strict } from '../json/utf8.js';
import { boundedGunzip } from './bounded-gunzip.js';
import { parseContentEncoding } from './content-encoding.js';
import { headerOf } from './headers.js';
import { type PutMediaKind, putMediaKind } from './media-type.js';
import type { ProxyEvent } from './proxy-event.js';

/** The two body limits. */
export interface BodyLimits {
  /** Bytes as sent (compressed or not): `SHARDWAL_MAX_BODY_BYTES`. */
  maxBodyBytes: number;
  /** Bytes after the Content-Encoding is undone: `SHARDWAL_MAX_DECODED_BODY_BYTES`. */
  maxDecodedBodyBytes: number;
}

/**
 * The 413 of a body over `SHARDWAL_MAX_BODY_BYTES` as sent; `atLeast` when
 * reading stopped before the end (the local gateway reading a chunked body).
 */
export function bodyTooLarge(limitBytes: number, gotBytes: number, atLeast = false) {
  return new PayloadTooLargeError('body', limitBytes, gotBytes, {
    limit: SETTINGS.maxBodyBytes.env,
    atLeast,
  });
}

/** A put body's text and how its media type says to read it. */
export interface PutBodyText {
  readonly text: string;
  readonly media: PutMediaKind;
}

/** The put body's text exactly as sent (see the module comment); '' when there is none. */
export function readPutBody(event: ProxyEvent, limits: BodyLimits): PutBodyText {
  const media = putMediaKind(headerOf(event.headers, 'content-type'));
  return { text: readBodyText(event, limits), media };
}

function readBodyText(event: ProxyEvent, limits: BodyLimits): string {
  const encoding = headerOf(event.headers, 'content-encoding');
  const codings = parseContentEncoding(encoding);
  // No body: absent (2.0) or null (1.0).
  if (event.body === undefined || event.body === null) return '';
  if (!event.isBase64Encoded) {
    if (codings.length > 0) {
      throw new UnsupportedMediaTypeError(
        'Content-Encoding',
        encoding ?? '',
        'identity for a body API Gateway passed as text: compressed bytes survive only base64-encoded (send gzip bodies with a Content-Type such as application/vnd.shardwal+json, which API Gateway passes as binary)',
      );
    }
    const length = Buffer.byteLength(event.body, 'utf8');
    if (length > limits.maxBodyBytes) throw bodyTooLarge(limits.maxBodyBytes, length);
    return event.body;
  }
  let bytes: Buffer = Buffer.from(event.body, 'base64');
  if (bytes.length > limits.maxBodyBytes) throw bodyTooLarge(limits.maxBodyBytes, bytes.length);
  const decodedLimit = {
    bytes: limits.maxDecodedBodyBytes,
    setting: SETTINGS.maxDecodedBodyBytes.env,
  };
  for (let i = codings.length - 1; i >= 0; i--) bytes = boundedGunzip(bytes, decodedLimit);
  return decodeUtf8Strict(bytes, 'body');
}
