import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GapSealedError, UnavailableError } from '../../lib/errors.js';
import { SimulatedCrash } from '../../lib/flush/fault-points.js';
import { type FlushOutcome, flushShard } from '../../lib/flush/flush-shard.js';
import { allocateSeq } from '../../lib/memtable/allocate.js';
import type { BatchRow } from '../../lib/memtable/batch-codec.js';
import { encodeBatchRows } from '../../lib/memtable/batch-codec.js';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { writeBatch } from '../../lib/memtable/write-batch.js';
import { putRows } from '../../lib/put/put-rows.js';
import { parsePutValue } from '../../lib/put/schema.js';
import { FaultyObjectStore } from '../../lib/store/faulty-store.js';
import { MemoryObjectStore } from '../../lib/store/memory-store.js';
import { runTick } from '../../lib/ticker/tick.js';
import type { JsonObject } from '../../lib/wal/format.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';
import { rowOf } from '../support/rows.js';
import {
  SteppedFlusher,
  type SteppedResult,
  SwitchableStore,
  seededRandom,
} from '../support/stepped-flusher.js';
import {
  type AckedBatch,
  chainProblems,
  drain,
  drainedRecordProblems,
  readWalChain,
} from '../support/wal-chain.js';

const dynalite = useDynalite();

/**
 * Fixed, so every run replays the same interleavings; fast-check prints the
 * seed and path of a failure. Set SHARDWAL_FLUSH_SEED to explore other seeds.
 */
const SEED = Number(process.env.SHARDWAL_FLUSH_SEED ?? 0x5eed_f1a5);
const NUM_RUNS = 25;
const SHARDS = ['r0', 'r1'] as const;
const IDEMPOTENCY_KEYS = 3;
const MAX_LIVE_FLUSHERS = 3;
// Short enough that a few random clock moves expire a paused flusher's lease or seal a gap.
const CLOCKS = [
  { leaseMs: 4_000, gapSealMs: 1_500 },
  { leaseMs: 1_500, gapSealMs: 4_000 },
];

type Command =
  | { kind: 'put'; shard: number; rows: number; idem: number | undefined }
  | { kind: 'allocOnly'; shard: number }
  | { kind: 'lateWrite'; pick: number }
  | { kind: 'start'; shard: number; steps: number }
  | { kind: 'zombie'; shard: number; steps: number; puts: number }
  | { kind: 'step'; pick: number; times: number }
  | { kind: 'crash'; pick: number }
  | { kind: 'flush'; shard: number }
  | { kind: 'tick' }
  | { kind: 'advance'; ms: number };

// Mostly one hot shard, so flushers collide; the other keeps the tick honest.
const shardArb = fc.oneof(
  { weight: 4, arbitrary: fc.constant(0) },
  { weight: 1, arbitrary: fc.constant(1) },
);
const pickArb = fc.nat({ max: 7 });
const commandArb = (clock: (typeof CLOCKS)[number]): fc.Arbitrary<Command> =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        kind: fc.constant('put' as const),
        shard: shardArb,
        rows: fc.integer({ min: 1, max: 3 }),
        idem: fc.option(fc.nat({ max: IDEMPOTENCY_KEYS - 1 }), { nil: undefined, freq: 2 }),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({ kind: fc.constant('allocOnly' as const), shard: shardArb }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('lateWrite' as const), pick: pickArb }) },
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant('start' as const),
        shard: shardArb,
        // Steps past the first point right away: a zombie-to-be parked deeper in the protocol.
        steps: fc.integer({ min: 0, max: 5 }),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('zombie' as const),
        shard: shardArb,
        steps: fc.integer({ min: 0, max: 5 }),
        puts: fc.integer({ min: 0, max: 2 }),
      }),
    },
    {
      weight: 5,
      arbitrary: fc.record({
        kind: fc.constant('step' as const),
        pick: pickArb,
        times: fc.integer({ min: 1, max: 3 }),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('crash' as const), pick: pickArb }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('flush' as const), shard: shardArb }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('tick' as const) }) },
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant('advance' as const),
        ms: fc.oneof(
          { weight: 3, arbitrary: fc.integer({ min: 1, max: 1_000 }) },
          { weight: 1, arbitrary: fc.constant(clock.leaseMs + 1) },
          { weight: 1, arbitrary: fc.constant(clock.gapSealMs + 1) },
        ),
      }),
    },
  );

const scenarioArb = fc.constantFrom(...CLOCKS).chain((clock) =>
  fc.record({
    clock: fc.constant(clock),
    faultSeed: fc.integer(),
    commands: fc.array(commandArb(clock), { minLength: 20, maxLength: 40, size: 'max' }),
  }),
);

/** Everything the driver knows: what was acked, what is parked, who is mid-flush. */
class Simulation {
  readonly acked = new Map<string, AckedBatch[]>(SHARDS.map((s) => [s, []]));
  readonly idempotent = new Map<string, { seq: number; rows: JsonObject[] }>();
  readonly parked: Array<{ shard: string; seq: number }> = [];
  readonly live: SteppedFlusher[] = [];
  #rowCounter = 0;
  #owners = 0;

  constructor(
    readonly f: Fixture,
    readonly store: SwitchableStore,
    readonly clean: MemoryObjectStore,
  ) {}

  async run(command: Command): Promise<void> {
    const { f } = this;
    switch (command.kind) {
      case 'put':
        return this.put(SHARDS[command.shard]!, command.rows, command.idem);
      case 'allocOnly': {
        const shard = SHARDS[command.shard]!;
        const { seq } = await allocateSeq(f.table, {
          shard,
          bytes: 20,
          nowMs: f.clock.now(),
          maxBufferedBytes: f.config.maxBufferedBytes,
          retryAfterSeconds: 1,
        });
        this.parked.push({ shard, seq });
        return;
      }
      case 'lateWrite': {
        if (this.parked.length === 0) return;
        const [writer] = this.parked.splice(command.pick % this.parked.length, 1);
        return this.lateWrite(writer!.shard, writer!.seq);
      }
      case 'start': {
        if (this.live.length >= MAX_LIVE_FLUSHERS) return;
        const flusher = new SteppedFlusher(
          f.flushDeps(`stepped-${this.#owners++}`),
          SHARDS[command.shard]!,
        );
        this.live.push(flusher);
        await flusher.start();
        for (let i = 0; i < command.steps && !flusher.done; i++) await flusher.step();
        return this.reap();
      }
      case 'zombie': {
        // A flusher parked mid-protocol outlives its lease while a newer one flushes the shard.
        const shard = SHARDS[command.shard]!;
        await this.run({ kind: 'start', shard: command.shard, steps: command.steps });
        for (let i = 0; i < command.puts; i++) await this.put(shard, 1, undefined);
        f.clock.advance(f.config.leaseMs + 1);
        return this.run({ kind: 'flush', shard: command.shard });
      }
      case 'step':
      case 'crash': {
        const flusher = this.live[command.pick % Math.max(1, this.live.length)];
        if (!flusher) return;
        const times = command.kind === 'step' ? command.times : 1;
        for (let i = 0; i < times && !flusher.done; i++)
          await flusher.step(command.kind === 'crash');
        return this.reap();
      }
      case 'flush': {
        const shard = SHARDS[command.shard]!;
        const result = await flushShard(f.flushDeps(`plain-${this.#owners++}`), shard).then(
          (outcome): SteppedResult => ({ outcome }),
          (error: unknown): SteppedResult => ({ error }),
        );
        return check(result);
      }
      case 'tick': {
        const summary = await runTick({
          flush: f.flushDeps(`tick-${this.#owners++}`),
          concurrency: 1,
          maxShardsPerTick: 10,
        });
        for (const outcome of summary.outcomes) check({ outcome });
        return;
      }
      case 'advance':
        f.clock.advance(command.ms);
        return;
    }
  }

  async put(shard: string, count: number, idem: number | undefined): Promise<void> {
    const key = idem === undefined ? undefined : `key-${idem}`;
    const earlier = key === undefined ? undefined : this.idempotent.get(`${shard}/${key}`);
    // A repeat sends the same request again.
    const rows =
      earlier?.rows ?? Array.from({ length: count }, (_, r) => ({ n: this.#rowCounter++, r }));
    const result = await putRows(this.f.put, {
      shard,
      body: parsePutValue({ rows }, 10_000),
      durability: 'buffered',
      idempotencyKey: key,
    });
    if (earlier) {
      expect(result).toMatchObject({ repeated: true, ack: { seq: earlier.seq } });
      return;
    }
    expect(result.repeated).toBe(false);
    this.acked
      .get(shard)!
      .push({ seq: result.ack.seq, rows: rows.map((row): BatchRow => rowOf(row)) });
    if (key !== undefined) this.idempotent.set(`${shard}/${key}`, { seq: result.ack.seq, rows });
  }

  /** A crashed put's step 4, late: acked if it lands, GapSealedError if its seq was sealed. */
  async lateWrite(shard: string, seq: number): Promise<void> {
    const rows: BatchRow[] = [rowOf({ late: seq, n: this.#rowCounter++ })];
    try {
      await writeBatch(this.f.table, {
        shard,
        seq,
        batch: encodeBatchRows(rows),
        bytes: 20,
        nowMs: this.f.clock.now(),
      });
      this.acked.get(shard)!.push({ seq, rows });
    } catch (error) {
      if (!(error instanceof GapSealedError)) throw error;
    }
  }

  reap(): void {
    for (const flusher of this.live.filter((x) => x.done)) {
      check(flusher.result!);
      this.live.splice(this.live.indexOf(flusher), 1);
    }
  }

  /** Releases every paused flusher, then drains fault-free and checks the invariants. */
  async settle(): Promise<void> {
    const { f } = this;
    for (const flusher of [...this.live]) await flusher.finish();
    this.reap();
    this.store.target = this.clean;
    f.clock.advance(Math.max(f.config.leaseMs, f.config.gapSealMs) + 1);
    for (const shard of SHARDS) await drain(f.flushDeps('drain'), shard);
    // Writers that never wrote find their seq sealed: an error, never a silent loss.
    for (const { shard, seq } of this.parked.splice(0)) {
      await expect(
        writeBatch(f.table, {
          shard,
          seq,
          batch: encodeBatchRows([rowOf({ never: seq })]),
          bytes: 20,
          nowMs: f.clock.now(),
        }),
      ).rejects.toBeInstanceOf(GapSealedError);
    }
    const problems: string[] = [];
    for (const shard of SHARDS) {
      const objects = await readWalChain(this.clean, shard);
      const record = await readShardRecord(f.table, shard);
      const acked = this.acked.get(shard)!;
      if (acked.length === 0 && !record) continue;
      problems.push(
        ...[...chainProblems(objects, acked), ...drainedRecordProblems(record, objects)].map(
          (p) => `${shard}: ${p}`,
        ),
      );
    }
    expect(problems).toEqual([]);
  }
}

/** A flush may end any way but poisoned; it may only throw a transient error or a simulated crash. */
function check(result: SteppedResult): void {
  if ('outcome' in result) {
    const outcome: FlushOutcome = result.outcome;
    if (outcome.status === 'poisoned') throw new Error(`healthy shard poisoned: ${outcome.reason}`);
    return;
  }
  if (result.error instanceof UnavailableError || result.error instanceof SimulatedCrash) return;
  throw result.error;
}

describe('flushShard', () => {
  describe('under random interleavings', () => {
    it('keeps every acked batch exactly once, in order, through zombies, crashes and store faults', async () => {
      await fc.assert(
        fc.asyncProperty(scenarioArb, async ({ clock, faultSeed, commands }) => {
          const clean = new MemoryObjectStore();
          const faulty = new FaultyObjectStore(clean, {
            random: seededRandom(faultSeed),
            failProbability: { putIfAbsent: 0.1, get: 0.1 },
            lostAckProbability: 0.15,
          });
          const store = new SwitchableStore(faulty);
          const f = await fixture(dynalite(), { ...clock, maxWalObjectBytes: 120 }, store);
          const sim = new Simulation(f, store, clean);
          for (const command of commands) await sim.run(command);
          await sim.settle();
        }),
        { seed: SEED, numRuns: NUM_RUNS, endOnFailure: true },
      );
    }, 120_000);
  });
});
