/**
 * The recovery function's input and dispatch. Two shapes arrive:
 *   scheduled:  `{ "mode": "verify" }` (or a bare EventBridge scheduled event)
 *               → verify every shard;
 *   on demand:  `{ "shard": "x", "mode": "verify" | "rebuild" }`.
 * Anything else is an `InvalidInputError` naming the field.
 */
import { z } from 'zod';
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

const requestSchema = z.object({
  mode: z.enum([RecoverMode.verify, RecoverMode.rebuild]),
  shard: z.string().optional(),
});

/** Parses the function's event. */
export function parseRecoverEvent(event: unknown): RecoverRequest {
  const fields =
    typeof event === 'object' && event !== null ? (event as Record<string, unknown>) : undefined;
  if (fields && fields.mode === undefined && fields['detail-type'] === 'Scheduled Event') {
    return { mode: RecoverMode.verify };
  }
  const parsed = requestSchema.safeParse(event);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.length > 0 ? `event.${issue.path.join('.')}` : 'event';
    throw new InvalidInputError(field, issue.message);
  }
  const { mode, shard } = parsed.data;
  if (shard !== undefined) assertShardName(shard, 'event.shard');
  if (mode === RecoverMode.rebuild) {
    if (shard === undefined)
      throw new InvalidInputError('event.shard', 'a rebuild names the shard to rebuild');
    return { mode, shard };
  }
  return shard === undefined ? { mode } : { mode, shard };
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
