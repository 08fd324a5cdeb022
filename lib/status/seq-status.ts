/**
 * The answer of `GET /v1/shards/{shard}/seqs/{seq}` (`SeqStatus` in
 * `docs/openapi.yaml`): the contract the status route (`lib/http/status-route.ts`)
 * answers with and the producer client (`lib/client/api-types.ts`) reads.
 * Types only, no service code: the client imports it without reaching the
 * memtable. How a state is decided: `seq-state.ts`.
 */

/**
 * The states of a seq (`SeqState` in the spec): `pending` (allocated, not
 * yet decided), `durable` (its rows are in the WAL), `void` (sealed, nothing
 * stored), `quarantined` (a rebuild set its rows aside for an operator),
 * `unknown` (older than the service can still tell).
 */
export const SeqState = {
  pending: 'pending',
  durable: 'durable',
  void: 'void',
  quarantined: 'quarantined',
  unknown: 'unknown',
} as const;
export type SeqState = (typeof SeqState)[keyof typeof SeqState];

/** Why a seq is `quarantined`: the rebuild that set it aside. */
export interface SeqQuarantine {
  generation: number;
  reason: string;
  rejectedAtMs: number;
}

/** `SeqStatus`: `GET /v1/shards/{shard}/seqs/{seq}`. */
export interface SeqStatus {
  shard: string;
  seq: number;
  /** One of `SeqState`; a newer service may add states: treat any other as not durable. */
  state: SeqState;
  /** True only when `state` is `durable`. */
  durable: boolean;
  durableSeq: number;
  poison: string | null;
  /** Present when `state` is `quarantined`. */
  quarantine?: SeqQuarantine;
}
