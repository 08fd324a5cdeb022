/**
 * Named points between a rebuild's fence and its cursor reset. Tests install
 * a hook to throw there (a rebuild killed after its fence: kill -9 of
 * `shardwal recover`, a recovery Lambda timing out) or to hold a rebuild
 * still while another actor runs. Production passes none.
 */

/** The fault points, in the rebuild's order. */
export const RebuildFaultPoint = {
  /** The fence is written: the shard is closed, nothing else has changed. */
  afterFence: 'rebuild:after-fence',
  /** The catch-up walked the objects appended since the replay. */
  afterCatchUp: 'rebuild:after-catch-up',
  /** Reconciliation sealed the seqs a put in flight could still write. */
  afterSeal: 'rebuild:after-seal',
  /** Reconciliation moved one rejected batch to the quarantine (each time). */
  afterQuarantine: 'rebuild:after-quarantine',
  /** Reconciliation is done; the cursors are not yet reset. */
  beforeReset: 'rebuild:before-reset',
} as const;
export type RebuildFaultPoint = (typeof RebuildFaultPoint)[keyof typeof RebuildFaultPoint];

/** A hook called at each point; it may delay (await) or throw to crash the rebuild there. */
export type RebuildFaultHook = (point: RebuildFaultPoint, shard: string) => Promise<void> | void;
