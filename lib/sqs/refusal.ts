/**
 * What an SQS put does with a message the put path refused, by error kind:
 *
 *   permanent   invalid input, too large, unsupported media type, a key
 *               reused with another payload: the same message can never
 *               succeed, so the handler sends it to the dead-letter queue
 *               itself with the reason, and reports it done (one WARN line);
 *   retry       backpressure, a poisoned shard, an unavailable dependency, a
 *               repeat still in progress, a fence: the message may succeed
 *               later, so it is held back (`hold-back.ts`) and retried;
 *   bug         anything else (internal, corrupt data, configuration, an
 *               error that is not shardwal's): retried like `retry`, but
 *               logged as an ERROR with its stack, since it needs a person.
 */
import { ErrorKind, ShardwalError } from '../errors.js';

/** How a refused message is handled. */
export const Refusal = { permanent: 'permanent', retry: 'retry', bug: 'bug' } as const;
export type Refusal = (typeof Refusal)[keyof typeof Refusal];

const PERMANENT: ReadonlySet<ErrorKind> = new Set([
  ErrorKind.invalidInput,
  ErrorKind.tooLarge,
  ErrorKind.unsupportedMediaType,
  ErrorKind.keyReused,
]);

const RETRY: ReadonlySet<ErrorKind> = new Set([
  ErrorKind.backpressure,
  ErrorKind.poisoned,
  ErrorKind.unavailable,
  ErrorKind.inProgress,
  ErrorKind.fenced,
]);

/** The refusal class of `error`. */
export function refusalOf(error: unknown): Refusal {
  if (!(error instanceof ShardwalError)) return Refusal.bug;
  if (PERMANENT.has(error.kind)) return Refusal.permanent;
  if (RETRY.has(error.kind)) return Refusal.retry;
  return Refusal.bug;
}
