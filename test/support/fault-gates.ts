/**
 * Fault hooks for protocol tests: pause a flusher at one fault point until the
 * test releases it (to interleave a zombie with a newer flusher), or crash it
 * there (`SimulatedCrash`), the way a process dies between two steps.
 */
import { type FaultHook, type FaultPoint, SimulatedCrash } from '../../lib/flush/fault-points.js';

/** A flusher held at one fault point. */
export interface Pause {
  /** Install as `faults` in FlushDeps. */
  hook: FaultHook;
  /** Resolves when the flusher reaches the point. */
  reached: Promise<void>;
  /** Every point the flusher passed, in order (the paused one included). */
  passed: FaultPoint[];
  /** Lets the flusher continue past the point. */
  release: () => void;
  /** Makes the flusher crash at the point instead. */
  crash: () => void;
}

/** Pauses the flusher the first time it reaches `point`. */
export function pauseAt(point: FaultPoint): Pause {
  let onReached!: () => void;
  const reached = new Promise<void>((resolve) => {
    onReached = resolve;
  });
  let release!: () => void;
  let crash!: () => void;
  const gate = new Promise<void>((resolve, reject) => {
    release = () => resolve();
    crash = () => reject(new SimulatedCrash(point));
  });
  const passed: FaultPoint[] = [];
  const hook: FaultHook = async (at) => {
    passed.push(at);
    if (at !== point || passed.filter((p) => p === point).length > 1) return;
    onReached();
    await gate;
  };
  return { hook, reached, passed, release, crash };
}

/** Crashes the flusher at `point`; records every point it passed. */
export function crashAt(point: FaultPoint): { hook: FaultHook; passed: FaultPoint[] } {
  const passed: FaultPoint[] = [];
  return {
    passed,
    hook: (at) => {
      passed.push(at);
      if (at === point) throw new SimulatedCrash(point);
    },
  };
}
