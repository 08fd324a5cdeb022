/**
 * The HTTP API's response bodies, as `docs/openapi.yaml` defines them
 * (`PutAck`, `ShardStatus`, `SeqStatus`), and the put route's body forms
 * and query parameters (`SeqStatus` is the service's own contract module,
 * `lib/status/seq-status.ts`). Each type has a field table the client checks
 * answers against at run time (`check-fields.ts`); `test/client/api-types.test.ts`
 * holds both against the YAML, so a change to the spec fails there first.
 */
import type { SeqStatus } from '../status/seq-status.js';

export { type SeqQuarantine, SeqState, type SeqStatus } from '../status/seq-status.js';

/** A JSON type as the spec names it. */
export type JsonType = 'string' | 'integer' | 'boolean' | 'object' | 'null';

/** One field of a response object: its JSON type(s) and whether the spec requires it. */
export interface FieldSpec {
  readonly type: JsonType | readonly JsonType[];
  readonly required: boolean;
}

/** `PutAck`: what a put answers (200 durable, 202 buffered). */
export interface PutAck {
  shard: string;
  /** The batch's sequence number, assigned in order per shard. */
  seq: number;
  rows: number;
  durable: boolean;
}

/** The fields of `PutAck`. */
export const PUT_ACK_FIELDS = {
  shard: { type: 'string', required: true },
  seq: { type: 'integer', required: true },
  rows: { type: 'integer', required: true },
  durable: { type: 'boolean', required: true },
} as const satisfies Record<keyof PutAck, FieldSpec>;

/**
 * The put route's body forms (`?format=`): the `{"rows": [...]}` object, a
 * bare array of rows, or NDJSON (one row per line). `ShardwalHttpClient`
 * sends the object form; these types are for callers that send the others
 * (a log shipper's batches, a JSON Lines file as it is).
 */
export const PutBodyForm = { object: 'object', array: 'array', ndjson: 'ndjson' } as const;
export type PutBodyForm = (typeof PutBodyForm)[keyof typeof PutBodyForm];

/** Media types the put route reads as NDJSON. */
export const NDJSON_MEDIA_TYPES = [
  'application/x-ndjson',
  'application/ndjson',
  'application/jsonl',
  'application/x-jsonl',
  'application/jsonlines',
  'application/x-jsonlines',
] as const;

/** The put route's query parameters. */
export interface PutQuery {
  durability?: 'buffered' | 'durable';
  /** The body's form; by default from the Content-Type and the body's first token. */
  format?: PutBodyForm;
  /** The object form's member holding the rows (default `rows`): `{"logs": [...]}` is `rows: 'logs'`. */
  rows?: string;
  /** The field that keys every row, in every form. */
  key?: string;
}

/** A flush lease as the status reports it. */
export interface ShardLease {
  owner: string;
  expiresAtMs: number;
}

/** `ShardStatus`: `GET /v1/shards/{shard}`. */
export interface ShardStatus {
  shard: string;
  nextSeq: number;
  durableSeq: number;
  walNextPos: number;
  nextRowOffset?: number;
  bufferedBytes: number;
  pending?: boolean;
  epoch: number;
  generation?: number;
  lease?: ShardLease | null;
  poison: string | null;
  aofWatermark?: number;
}

/** The fields of `ShardStatus`. */
export const SHARD_STATUS_FIELDS = {
  shard: { type: 'string', required: true },
  nextSeq: { type: 'integer', required: true },
  durableSeq: { type: 'integer', required: true },
  walNextPos: { type: 'integer', required: true },
  nextRowOffset: { type: 'integer', required: false },
  bufferedBytes: { type: 'integer', required: true },
  pending: { type: 'boolean', required: false },
  epoch: { type: 'integer', required: true },
  generation: { type: 'integer', required: false },
  lease: { type: ['null', 'object'], required: false },
  poison: { type: ['string', 'null'], required: true },
  aofWatermark: { type: 'integer', required: false },
} as const satisfies Record<keyof ShardStatus, FieldSpec>;

/** The fields of `SeqStatus`. */
export const SEQ_STATUS_FIELDS = {
  shard: { type: 'string', required: true },
  seq: { type: 'integer', required: true },
  state: { type: 'string', required: true },
  durable: { type: 'boolean', required: true },
  durableSeq: { type: 'integer', required: true },
  poison: { type: ['string', 'null'], required: true },
  quarantine: { type: 'object', required: false },
} as const satisfies Record<keyof SeqStatus, FieldSpec>;
