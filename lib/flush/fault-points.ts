/**
 * Named points between the steps of the flush protocol. Tests install a hook
 * to pause a flusher there (to interleave a zombie with a newer flusher) or to
 * throw (to simulate a crash between two steps). Production passes none.
 */

/** The fault points, in protocol order. */
export const FaultPoint = {
  afterClaim: 'flush:after-claim',
  afterResolve: 'flush:after-resolve',
  afterWalWrite: 'flush:after-wal-write',
  afterCommit: 'flush:after-commit',
  beforeClearPending: 'flush:before-clear-pending',
} as const;
export type FaultPoint = (typeof FaultPoint)[keyof typeof FaultPoint];

/** A hook called at each point; it may delay (await) or throw to crash the flusher there. */
export type FaultHook = (point: FaultPoint, shard: string) => Promise<void> | void;

/** Thrown by test hooks to simulate a process dying at a point. */
export class SimulatedCrash extends Error {
  constructor(point: FaultPoint) {
    super(`simulated crash at ${point}`);
    this.name = 'SimulatedCrash';
  }
}
