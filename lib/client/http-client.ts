/**
 * `ShardwalHttpClient`: the HTTP API from a producer's side. One call is one
 * request plus its retries:
 *
 * 1. A put carries one Idempotency-Key (the caller's, else a fresh UUID),
 *    kept across all its retries, so a retry after a lost answer or a
 *    dropped connection returns the original ack instead of landing twice.
 * 2. The body is built and (above `gzip.minBytes`) gzipped once; every
 *    attempt is signed afresh (SigV4, when `auth` asks for it). A gzipped
 *    body is sent as `application/vnd.shardwal+json`, which API Gateway
 *    passes to the function as bytes (as `application/json` it would pass
 *    it as text, and the service would answer 415); a plain one as
 *    `application/json`.
 * 3. Errors become their typed class (`errors.ts`) from the service's
 *    `{"error": {"kind"}}` or API Gateway's own answers; the kind decides
 *    whether to retry (`error-kinds.ts`), `retry.ts` how long to wait.
 * 4. A service that refuses a gzipped body (415, or an older one's 400 on
 *    the body as a whole) gets the same rows uncompressed under the same
 *    key at once; once that succeeds, this client stops gzipping.
 */
import { randomUUID } from 'node:crypto';
import { ConfigError, ErrorKind, InvalidInputError } from '../errors.js';
import {
  PUT_ACK_FIELDS,
  type PutAck,
  SEQ_STATUS_FIELDS,
  SeqState,
  type SeqStatus,
  SHARD_STATUS_FIELDS,
  type ShardStatus,
} from './api-types.js';
import { checkFields } from './check-fields.js';
import {
  ApiError,
  ConnectionError,
  ErrorOrigin,
  MalformedResponseError,
  SeqNotDurableError,
  SeqWaitEnd,
} from './errors.js';
import {
  type EncodedBody,
  encodeBody,
  frameRows,
  GZIP_DEFAULTS,
  type GzipOptions,
} from './put-body.js';
import { errorFromResponse } from './response-error.js';
import { type RetryEvent, type RetryOptions, retryOptions, withRetries } from './retry.js';
import { type RawRow, type Row, rowText } from './rows.js';
import { createSigner, type RequestSigner, type SigV4Auth } from './sigv4.js';

/** The Idempotency-Key pattern of the API: 1-256 visible ASCII characters but the comma (a repeated header arrives comma-joined). */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x2b\x2d-\x7e]{1,256}$/;

/** Content-Type of an uncompressed body. */
const PLAIN_JSON_TYPE = 'application/json; charset=utf-8';
/** Content-Type of a compressed body: a JSON type API Gateway passes to the function as bytes. */
const COMPRESSED_JSON_TYPE = 'application/vnd.shardwal+json';

/** Options of `ShardwalHttpClient`. */
export interface HttpClientOptions {
  /** Base URL of the API, e.g. `https://abc123.execute-api.eu-west-1.amazonaws.com` (a stage path is kept). */
  endpoint: string | URL;
  /** `'none'` (the local stack; the default) or SigV4 signing for API Gateway's IAM authorizer. */
  auth?: 'none' | SigV4Auth;
  /** Gzip bodies of at least `minBytes` (default 8 KiB, level 6); `false` never does. */
  gzip?: Partial<GzipOptions> | false;
  /** Per request; a durable put waits up to 25 s on the service (default 35 s). */
  requestTimeoutMs?: number;
  retry?: Partial<RetryOptions>;
  /** Hears every retry before its wait (counting, logging). */
  onRetry?: (event: ClientRetryEvent) => void;
  /** Default: the global `fetch`. */
  fetch?: typeof fetch;
  /** Default: `process.env` (for `AWS_REGION` and the credential chain). */
  env?: NodeJS.ProcessEnv;
}

/** A retry, with the request it belongs to. */
export interface ClientRetryEvent extends RetryEvent {
  method: string;
  path: string;
  /** The put's Idempotency-Key (puts only). */
  key?: string;
}

/** Options of one put. */
export interface PutOptions {
  /** Wait (bounded) until the WAL append covering the batch is committed. */
  durable?: boolean;
  /** The Idempotency-Key; default a fresh UUID. Re-sending the same rows under it cannot land them twice. */
  key?: string;
  /** Name of the field that keys every row (upserts; `"$delete": true` deletes). */
  keyField?: string;
  signal?: AbortSignal;
}

/** Options of `waitDurable`. */
export interface WaitDurableOptions {
  /** Give up after this long (default 60 s) with `SeqNotDurableError` (`timeout`). */
  timeoutMs?: number;
  /** Between two status reads (default 200 ms). */
  pollMs?: number;
  signal?: AbortSignal;
}

interface RequestSpec {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string>;
  body?: string;
  key?: string;
  durable: boolean;
  signal?: AbortSignal;
}

const DEFAULT_TIMEOUT_MS = 35_000;

/** Success statuses and what they carry. */
type Answer = { status: number; body: unknown };

/** The HTTP API client; see the module comment. */
export class ShardwalHttpClient {
  readonly #base: URL;
  readonly #fetch: typeof fetch;
  readonly #signer: RequestSigner | undefined;
  readonly #retry: RetryOptions;
  readonly #timeoutMs: number;
  readonly #onRetry: ((event: ClientRetryEvent) => void) | undefined;
  #gzip: GzipOptions | false;

  constructor(options: HttpClientOptions) {
    let base: URL;
    try {
      base = new URL(options.endpoint);
    } catch {
      throw new ConfigError('endpoint', String(options.endpoint), 'expected an absolute URL');
    }
    if (!base.pathname.endsWith('/')) base.pathname += '/';
    this.#base = base;
    this.#fetch = options.fetch ?? fetch;
    const auth = options.auth ?? 'none';
    this.#signer = auth === 'none' ? undefined : createSigner(auth, base, options.env);
    this.#retry = retryOptions(options.retry);
    this.#timeoutMs = options.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#onRetry = options.onRetry;
    this.#gzip = options.gzip === false ? false : { ...GZIP_DEFAULTS, ...options.gzip };
  }

  /** The API's base URL. */
  get endpoint(): string {
    return this.#base.href;
  }

  /**
   * Puts `rows` into `shard` as one batch; resolves with the ack (`durable`
   * false when buffered, or when a durable wait ran out: see `waitDurable`).
   */
  async put(
    shard: string,
    rows: readonly (Row | RawRow)[],
    options: PutOptions = {},
  ): Promise<PutAck> {
    return this.putRowTexts(
      shard,
      rows.map((row, i) => rowText(row, `rows[${i}]`)),
      options,
    );
  }

  /** `put` for rows already serialized (each the JSON text of one object). */
  async putRowTexts(
    shard: string,
    rowTexts: readonly string[],
    options: PutOptions = {},
  ): Promise<PutAck> {
    if (rowTexts.length === 0) throw new InvalidInputError('rows', 'expected at least one row');
    const key = options.key ?? randomUUID();
    if (!IDEMPOTENCY_KEY_PATTERN.test(key)) {
      throw new InvalidInputError(
        'key',
        `expected 1-256 visible ASCII characters, got ${JSON.stringify(key)}`,
      );
    }
    const durable = options.durable === true;
    const answer = await this.#request({
      method: 'POST',
      path: `v1/shards/${encodeURIComponent(shard)}/rows`,
      query: durable ? { durability: 'durable' } : undefined,
      body: frameRows({ keyField: options.keyField }, rowTexts),
      key,
      durable,
      signal: options.signal,
    });
    return checkFields<PutAck>(answer.body, PUT_ACK_FIELDS, `put ack (${answer.status})`);
  }

  /** The shard's status; `NotFoundApiError` when it was never written. */
  async status(shard: string, signal?: AbortSignal): Promise<ShardStatus> {
    const answer = await this.#request({
      method: 'GET',
      path: `v1/shards/${encodeURIComponent(shard)}`,
      durable: false,
      signal,
    });
    return checkFields<ShardStatus>(answer.body, SHARD_STATUS_FIELDS, 'shard status');
  }

  /**
   * The state of batch `seq` of `shard` (`SeqStatus.state`). A seq that is
   * not an integer from 1 to `Number.MAX_SAFE_INTEGER` (the largest the
   * service issues) is refused before sending: no other number names a seq exactly.
   */
  async seqStatus(shard: string, seq: number, signal?: AbortSignal): Promise<SeqStatus> {
    if (!Number.isSafeInteger(seq) || seq < 1) {
      throw new InvalidInputError(
        'seq',
        `expected an integer from 1 to ${Number.MAX_SAFE_INTEGER}, got ${seq}`,
      );
    }
    const answer = await this.#request({
      method: 'GET',
      path: `v1/shards/${encodeURIComponent(shard)}/seqs/${seq}`,
      durable: false,
      signal,
    });
    return checkFields<SeqStatus>(answer.body, SEQ_STATUS_FIELDS, 'seq status');
  }

  /**
   * Polls until batch `seq` is durable and resolves with that status; never
   * resolves otherwise. Rejects with `SeqNotDurableError` naming why: the seq
   * is `void` or `quarantined` (it never will be durable), `unknown` (too
   * old for the service to tell), its shard is `poisoned`, or the time ran
   * out (`timeout`, still `pending`). Each carries the last status.
   */
  async waitDurable(
    shard: string,
    seq: number,
    options: WaitDurableOptions = {},
  ): Promise<SeqStatus> {
    const deadline = this.#retry.now() + (options.timeoutMs ?? 60_000);
    for (;;) {
      const status = await this.seqStatus(shard, seq, options.signal);
      if (status.state === SeqState.durable && status.durable) return status;
      const end = waitEndOf(status);
      if (end) throw new SeqNotDurableError(end, status, waitEndDetail(end, status));
      if (this.#retry.now() >= deadline) {
        throw new SeqNotDurableError(
          SeqWaitEnd.timeout,
          status,
          `still ${status.state} after ${options.timeoutMs ?? 60_000} ms (durableSeq ${status.durableSeq}); ask again later`,
        );
      }
      await this.#retry.sleep(options.pollMs ?? 200, options.signal);
    }
  }

  async #request(spec: RequestSpec): Promise<Answer> {
    let body: EncodedBody | undefined;
    return withRetries(
      async () => {
        if (spec.body !== undefined) body ??= await encodeBody(spec.body, this.#gzip);
        try {
          return await this.#attempt(spec, body);
        } catch (error) {
          if (!isGzipRefused(error, body)) throw error;
          // A service that does not read gzip bodies refused this one before buffering
          // anything: send the same rows plain, under the same key.
          const plain = await encodeBody(spec.body!, false);
          const answer = await this.#attempt(spec, plain);
          this.#gzip = false;
          body = plain;
          return answer;
        }
      },
      this.#retry,
      this.#onRetry &&
        ((event) =>
          this.#onRetry?.({ ...event, method: spec.method, path: spec.path, key: spec.key })),
      spec.signal,
    );
  }

  async #attempt(spec: RequestSpec, body: EncodedBody | undefined): Promise<Answer> {
    const url = new URL(spec.path, this.#base);
    for (const [name, value] of Object.entries(spec.query ?? {})) url.searchParams.set(name, value);
    let headers: Record<string, string> = { accept: 'application/json' };
    if (body) {
      // API Gateway passes application/json as text, which compressed bytes do not survive:
      // a compressed body goes as a JSON type it passes as bytes (docs/openapi.yaml, "Transport").
      headers['content-type'] = body.contentEncoding ? COMPRESSED_JSON_TYPE : PLAIN_JSON_TYPE;
      if (body.contentEncoding) headers['content-encoding'] = body.contentEncoding;
    }
    if (spec.key !== undefined) headers['idempotency-key'] = spec.key;
    if (this.#signer) {
      headers = await this.#signer({ method: spec.method, url, headers, body: body?.bytes });
    }
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    const signal = spec.signal ? AbortSignal.any([spec.signal, timeout]) : timeout;
    let status: number;
    let text: string;
    let response: Response;
    try {
      response = await this.#fetch(url, {
        method: spec.method,
        headers,
        body: body?.bytes,
        redirect: 'manual',
        signal,
      });
      status = response.status;
      text = await response.text();
    } catch (error) {
      if (spec.signal?.aborted) throw error;
      throw new ConnectionError(
        `${spec.method} ${url.href}: ${connectionProblem(error, this.#timeoutMs)}; ` +
          'the request may have been received (a retry with the same Idempotency-Key is safe)',
        error,
      );
    }
    if (status >= 200 && status < 300) {
      try {
        return { status, body: JSON.parse(text) as unknown };
      } catch {
        throw new MalformedResponseError(
          `${spec.method} ${url.pathname} (${status})`,
          `not JSON: ${JSON.stringify(text.slice(0, 200))}`,
        );
      }
    }
    throw errorFromResponse(
      {
        status,
        retryAfter: response.headers.get('retry-after'),
        location: response.headers.get('location'),
        bodyText: text,
      },
      { durable: spec.durable },
      this.#retry.now(),
    );
  }
}

/**
 * Whether a gzipped body was refused for its encoding: a 415 (the service's
 * or a gateway's), or (a service from before gzip support, which reads the
 * bytes as JSON text) a 400 naming the body as a whole, which the client's
 * own JSON never earns.
 */
function isGzipRefused(error: unknown, body: EncodedBody | undefined): boolean {
  if (body?.contentEncoding === undefined || !(error instanceof ApiError)) return false;
  if (error.kind === ErrorKind.unsupportedMediaType) return true; // the service's or a gateway's
  return (
    error.origin === ErrorOrigin.service &&
    error.kind === ErrorKind.invalidInput &&
    /^400 invalid_input: body: /.test(error.message)
  );
}

/** Why a request got no answer, in a few words: the system error code when there is one. */
function connectionProblem(error: unknown, timeoutMs: number): string {
  if ((error as Error | undefined)?.name === 'TimeoutError')
    return `no answer within ${timeoutMs} ms`;
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  const message = typeof cause?.message === 'string' ? cause.message : (error as Error).message;
  return `connection failed (${code ? `${code}: ` : ''}${message})`;
}

/** Why a wait ends at `status` now, or undefined while it may still become durable. */
function waitEndOf(status: SeqStatus): SeqWaitEnd | undefined {
  if (status.state === SeqState.void) return SeqWaitEnd.void;
  if (status.state === SeqState.quarantined) return SeqWaitEnd.quarantined;
  if (status.poison !== null) return SeqWaitEnd.poisoned;
  if (status.state === SeqState.pending) return undefined;
  // `unknown`, a state this client does not know, or `durable` contradicted by `durable: false`.
  return SeqWaitEnd.unknown;
}

function waitEndDetail(end: SeqWaitEnd, status: SeqStatus): string {
  switch (end) {
    case SeqWaitEnd.void:
      return 'it was sealed void and nothing was stored; re-put the rows if they should land';
    case SeqWaitEnd.quarantined:
      return `a rebuild (generation ${status.quarantine?.generation ?? '?'}) set its rows aside for an operator${status.quarantine ? `: ${status.quarantine.reason}` : ''}`;
    case SeqWaitEnd.poisoned:
      return `the shard is poisoned: ${status.poison}`;
    default:
      return `the service answered state ${JSON.stringify(status.state)}: it can no longer tell whether the rows were stored`;
  }
}
