/**
 * Named points between the steps of the put path, as `lib/flush/fault-points.ts`
 * names the flush protocol's. Tests and the simulation install a hook to
 * crash a put there (throw) or hold it (await). Production passes none.
 */

/** The put path's fault points, in order. */
export const PutFaultPoint = {
  afterAllocate: 'put:after-allocate',
  afterClaim: 'put:after-claim',
  afterWrite: 'put:after-write',
} as const;
export type PutFaultPoint = (typeof PutFaultPoint)[keyof typeof PutFaultPoint];

/** A hook called at each point; it may delay (await) or throw to crash the put there. */
export type PutFaultHook = (point: PutFaultPoint, shard: string) => Promise<void> | void;
