/**
 * The simulation's world: virtual time, actors, and a seeded scheduler that
 * decides, one request at a time, which actor's next DynamoDB or object store
 * request applies. Everything shardwal does runs unchanged; only its clients
 * (`MemoryDynamoDB`, the memory object store) and its clock come from here.
 *
 * How an interleaving is chosen:
 * - every request of an actor parks in `park()` with a ready time (now + a
 *   random latency); the scheduler picks one ready request at random, lets it
 *   apply, and waits until every actor is parked again (`quiesce`);
 * - when nothing is ready, virtual time jumps to the next ready time;
 * - an actor may be stalled (a GC pause, a frozen process: a zombie) or
 *   killed at any park (a process dying between two requests, or after its
 *   request applied and before it saw the response). A killed actor's
 *   requests never resume.
 * The seed alone fixes every choice, so a run replays exactly.
 *
 * Quiescence is exact because nothing the simulated code does waits on real
 * time or real I/O: stores are in memory, clocks and sleeps are virtual, and
 * gunzip streams are made synchronous (`makeZlibSynchronous`), so once every
 * microtask and nextTick has run, every actor is parked or done.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { Transform } from 'node:stream';
import type { ZlibOptions } from 'node:zlib';
import { seededRandom } from '../../lib/seeded-random.js';

/** Kinds of actor; the checker and the kill policy tell them apart. */
export type ActorKind =
  | 'put'
  | 'client'
  | 'flush'
  | 'tick'
  | 'export'
  | 'verify'
  | 'rebuild'
  | 'keeper'
  | 'reader'
  | 'table';

/** One concurrent activity (a put's process, a flusher, a tick, ...). */
export interface Actor {
  id: number;
  name: string;
  kind: ActorKind;
  /** This actor's clock offset from virtual time (clock skew). */
  skewMs: number;
  killed: boolean;
  done: boolean;
  /** Not eligible to run before this virtual time (a stall). */
  stalledUntil: number;
  /** Resolves when the actor is killed. */
  died: Promise<void>;
  markDied: () => void;
}

/** A spawned actor and what its work resolves to (never, once it is killed). */
export interface Spawned<T> {
  actor: Actor;
  promise: Promise<T>;
}

interface Parked {
  seq: number;
  actor: Actor;
  label: string;
  readyAt: number;
  resume: () => void;
}

/** The policy the scheduler applies at each step. */
export interface WorldPolicy {
  /** Largest latency a request gets before it may apply (ms). */
  maxLatencyMs: number;
  /** Probability, per step, of stalling the picked actor instead of running it. */
  stallProbability: number;
  /** Longest stall (ms). */
  maxStallMs: number;
  /** Probability, per step, of killing the picked actor (when its kind may be killed). */
  killProbability: number;
  /** Kinds that may be killed or stalled. */
  faultyKinds: ReadonlySet<ActorKind>;
}

/** Bounded list of what happened, for a failing run's report. */
export class Trace {
  readonly lines: string[] = [];
  constructor(private readonly limit: number) {}
  add(now: number, line: string): void {
    if (this.lines.length < this.limit) this.lines.push(`${String(now).padStart(7)} ${line}`);
    else if (this.lines.length === this.limit) this.lines.push('... (trace truncated)');
  }
}

/**
 * Which actor an async chain belongs to, for every world: an AsyncLocalStorage
 * stays in Node's propagation list until disabled, so one per world made every
 * promise of a long `npm run sim` slower than the last (quadratic in schedules).
 */
const ACTORS = new AsyncLocalStorage<Actor>();

/** Virtual time and the scheduler. */
/** What actors' clocks read at virtual time 0: 2027-01-15, on the grid of every tick interval. */
export const CLOCK_ORIGIN_MS = 1_800_000_000_000;

export class World {
  now = 0;
  readonly random: () => number;
  readonly trace: Trace;
  policy: WorldPolicy;
  faultsOn = true;
  steps = 0;
  readonly #parked: Parked[] = [];
  readonly #actors: Actor[] = [];
  #nextSeq = 0;

  constructor(seed: number, policy: WorldPolicy, traceLimit = 4_000) {
    this.random = seededRandom(seed);
    this.policy = policy;
    this.trace = new Trace(traceLimit);
  }

  /** The actor running the current code, if any. */
  current(): Actor | undefined {
    return ACTORS.getStore();
  }

  /**
   * A clock for the current actor (its skew applied); setup code reads virtual time. It
   * reads a wall-clock instant, `CLOCK_ORIGIN_MS` on, as a real clock does: virtual time
   * starts at 0, and an actor whose clock runs behind must still read a positive instant.
   */
  clock = (): number => CLOCK_ORIGIN_MS + this.now + (this.current()?.skewMs ?? 0);

  /** Runs `fn` as a new actor. */
  spawn<T>(name: string, kind: ActorKind, skewMs: number, fn: () => Promise<T>): Spawned<T> {
    let markDied!: () => void;
    const died = new Promise<void>((resolve) => {
      markDied = resolve;
    });
    const actor: Actor = {
      id: this.#actors.length + 1,
      name,
      kind,
      skewMs,
      killed: false,
      done: false,
      stalledUntil: 0,
      died,
      markDied,
    };
    this.#actors.push(actor);
    this.trace.add(this.now, `spawn ${name}`);
    const run = ACTORS.run(actor, fn);
    const promise = run.finally(() => {
      actor.done = true;
    });
    return { actor, promise };
  }

  /** Runs `fn` outside any actor: it never parks (checks and setup). */
  outside<T>(fn: () => T): T {
    return ACTORS.exit(fn);
  }

  /** Parks the current actor's next request until the scheduler picks it. */
  park(label: string, readyInMs?: number): Promise<void> {
    const actor = this.current();
    if (!actor) return Promise.resolve();
    if (actor.killed) return new Promise(() => undefined);
    const latency = readyInMs ?? Math.floor(this.random() * (this.policy.maxLatencyMs + 1));
    return new Promise<void>((resume) => {
      this.#parked.push({
        seq: this.#nextSeq++,
        actor,
        label,
        readyAt: this.now + latency,
        resume,
      });
    });
  }

  /** A virtual sleep for the current actor. */
  sleep = (ms: number): Promise<void> => this.park('sleep', Math.max(0, Math.ceil(ms)));

  /** Actors still alive and not finished. */
  live(kind?: ActorKind): Actor[] {
    return this.#actors.filter((a) => !a.done && !a.killed && (!kind || a.kind === kind));
  }

  /**
   * One scheduling step. Returns false when nothing is parked at all (every
   * actor finished or died). `until` bounds the virtual time a step may jump to.
   */
  async step(until = Number.POSITIVE_INFINITY): Promise<boolean> {
    await quiesce();
    this.steps += 1;
    const runnable = (p: Parked) => p.readyAt <= this.now && p.actor.stalledUntil <= this.now;
    const ready = this.#parked.filter(runnable);
    if (ready.length === 0) {
      if (this.#parked.length === 0) return false;
      const next = Math.min(...this.#parked.map((p) => Math.max(p.readyAt, p.actor.stalledUntil)));
      if (next > until) return false;
      this.now = Math.max(this.now, next);
      return true;
    }
    const pick = ready[Math.floor(this.random() * ready.length)]!;
    const { actor } = pick;
    if (this.faultsOn && this.policy.faultyKinds.has(actor.kind) && pick.label !== 'sleep') {
      const roll = this.random();
      if (roll < this.policy.killProbability) {
        this.kill(actor, `at ${pick.label}`);
        return true;
      }
      if (roll < this.policy.killProbability + this.policy.stallProbability) {
        actor.stalledUntil = this.now + 1 + Math.floor(this.random() * this.policy.maxStallMs);
        this.trace.add(
          this.now,
          `stall ${actor.name} until ${actor.stalledUntil} at ${pick.label}`,
        );
        return true;
      }
    }
    this.#parked.splice(this.#parked.indexOf(pick), 1);
    if (pick.label !== 'sleep') this.trace.add(this.now, `${actor.name} ${pick.label}`);
    pick.resume();
    return true;
  }

  /** Kills `actor`: its parked requests never resume. */
  kill(actor: Actor, why: string): void {
    actor.killed = true;
    for (let i = this.#parked.length - 1; i >= 0; i--) {
      if (this.#parked[i]!.actor === actor) this.#parked.splice(i, 1);
    }
    this.trace.add(this.now, `KILL ${actor.name} ${why}`);
    actor.markDied();
  }

  /** Runs steps until `done()` holds, nothing is parked, or `maxSteps` ran. */
  async runUntil(done: () => boolean, maxSteps: number, until?: number): Promise<void> {
    for (let i = 0; i < maxSteps && !done(); i++) {
      if (!(await this.step(until))) {
        if (until === undefined || this.now >= until) return;
        this.now = until;
      }
    }
  }
}

/** Lets every microtask, nextTick and resolved continuation run. */
async function quiesce(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
}

let zlibPatched = false;

/**
 * Replaces `zlib.createGunzip` and `zlib.createGzip` with synchronous
 * equivalents (collect the input, run it through zlib in one call at the
 * end), and `zlib.gzip` with one that compresses at once and answers on the
 * next tick, so reading and writing a stream finish in microtasks and the
 * scheduler's quiescence is exact. Same output and errors as the real
 * streams for a whole object, which is how shardwal uses them.
 */
export function makeZlibSynchronous(): void {
  if (zlibPatched) return;
  zlibPatched = true;
  // The CommonJS exports object: writable, and what ESM named imports mirror after the sync.
  const zlib = createRequire(import.meta.url)('node:zlib') as typeof import('node:zlib');
  const createGunzip = () => {
    const chunks: Buffer[] = [];
    const stream = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        chunks.push(chunk);
        callback();
      },
      flush(callback) {
        try {
          const input = Buffer.concat(chunks);
          const out = zlib.gunzipSync(input, { info: true }) as unknown as {
            buffer: Buffer;
            engine: { bytesWritten: number };
          };
          // What the real stream reports: compressed bytes consumed (trailing bytes excluded).
          (stream as unknown as { bytesWritten: number }).bytesWritten = out.engine.bytesWritten;
          callback(null, out.buffer);
        } catch (error) {
          callback(error as Error);
        }
      },
    });
    return stream;
  };
  const createGzip = (options: { level?: number } = {}) => {
    const chunks: Buffer[] = [];
    return new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        chunks.push(chunk);
        callback();
      },
      flush(callback) {
        callback(null, zlib.gzipSync(Buffer.concat(chunks), { level: options.level }));
      },
    });
  };
  // The callback form (parallel gzip members): compressed at once, answered on the next tick.
  const gzip = (
    input: Buffer,
    options: ZlibOptions,
    callback: (error: Error | null, result?: Buffer) => void,
  ) => {
    let result: Buffer | undefined;
    let failure: Error | null = null;
    try {
      result = zlib.gzipSync(input, options);
    } catch (error) {
      failure = error as Error;
    }
    process.nextTick(() => callback(failure, result));
  };
  // zlib defines its factories read-only but configurable.
  Object.defineProperty(zlib, 'createGunzip', { value: createGunzip, writable: true });
  Object.defineProperty(zlib, 'createGzip', { value: createGzip, writable: true });
  Object.defineProperty(zlib, 'gzip', { value: gzip, writable: true });
  syncBuiltinESMExports();
}
