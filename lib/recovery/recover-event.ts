/**
 * The recovery function's input and dispatch. Two shapes arrive:
 *   scheduled:  `{ "mode": "verify" }` (or a bare EventBridge scheduled event)
 *               → verify every shard;
 *   on demand:  `{ "shard": "x", "mode": "verify" | "rebuild" }`.
 * Anything else is an `InvalidInputError` naming the field.
 */
import { InvalidInputError } from '../errors.js';
import { assertShardName } from '../paths.js';
import type { RecoveryDeps } from './deps.js';
import { rebuildShard } from './rebuild.js';
import type { RebuildReport } from './rebuild-report.js';
import { type VerifyReport, verifyShard } from './verify.js';
import { type VerifyAllReport, verifyAll } from './verify-all.js';

/** Modes of the recovery function. */
export const RecoverMode = { verify: 'verify', rebuild: 'rebuild' } as const;
export type RecoverMode = (typeof RecoverMode)[keyof typeof RecoverMode];

/** A parsed recovery request. */
export type RecoverRequest =
  | { mode: typeof RecoverMode.verify; shard?: string }
  | { mode: typeof RecoverMode.rebuild; shard: string };

const MODES: readonly unknown[] = Object.values(RecoverMode);

/** Parses the function's event. */
export function parseRecoverEvent(event: unknown): RecoverRequest {
  if (typeof event !== 'object' || event === null || Array.isArray(event)) {
    throw new InvalidInputError('event', `expected an object, got ${JSON.stringify(event)}`);
  }
  const fields = event as Record<string, unknown>;
  if (fields.mode === undefined && fields['detail-type'] === 'Scheduled Event') {
    return { mode: RecoverMode.verify };
  }
  const { mode } = fields;
  if (!MODES.includes(mode)) {
    throw new InvalidInputError(
      'event.mode',
      `expected one of ${MODES.join(', ')}, got ${JSON.stringify(mode)}`,
    );
  }
  let shard: string | undefined;
  if (fields.shard !== undefined) {
    assertShardName(fields.shard, 'event.shard');
    shard = fields.shard;
  }
  if (mode === RecoverMode.rebuild) {
    if (shard === undefined)
      throw new InvalidInputError('event.shard', 'a rebuild names the shard to rebuild');
    return { mode, shard };
  }
  return shard === undefined ? { mode: RecoverMode.verify } : { mode: RecoverMode.verify, shard };
}

/** Runs what the event asks for; resolves to its report. */
export async function handleRecoverEvent(
  deps: RecoveryDeps,
  event: unknown,
  options: { shouldStop?: () => boolean } = {},
): Promise<VerifyReport | VerifyAllReport | RebuildReport> {
  const request = parseRecoverEvent(event);
  if (request.mode === RecoverMode.rebuild) return rebuildShard(deps, request.shard);
  if (request.shard !== undefined) return verifyShard(deps, request.shard);
  return verifyAll(deps, { shouldStop: options.shouldStop });
}
