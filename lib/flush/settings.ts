/**
 * The flusher's settings, apart from the protocol (`flush-shard.ts`): a
 * process that builds `FlushDeps` without flushing (the put and status
 * functions, through `lib/runtime/service.ts`) then never loads the flusher.
 */
import type { FlushDeps } from './flush-shard.js';

/** The flusher's settings (a `ShardwalConfig` is one). */
export type FlushSettings = Pick<
  FlushDeps,
  'maxWalObjectBytes' | 'gapSealMs' | 'leaseMs' | 'walRetentionMs' | 'clockSkewMs'
>;

/** The flusher's settings picked from `config`: every builder of `FlushDeps` takes them here. */
export function flushSettings(config: FlushSettings): FlushSettings {
  const { maxWalObjectBytes, gapSealMs, leaseMs, walRetentionMs, clockSkewMs } = config;
  return { maxWalObjectBytes, gapSealMs, leaseMs, walRetentionMs, clockSkewMs };
}
