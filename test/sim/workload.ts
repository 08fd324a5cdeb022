/**
 * What the simulated producers do, drawn from the schedule's seed: which puts
 * arrive when, on which shard, keyed or not, idempotent or not, durable or
 * not, over HTTP or SQS, and how large. Every put carries rows tagged with its
 * intent id, so the checker can find each put's rows in the WAL.
 */
import { seededRandom } from '../../lib/seeded-random.js';
import type { JsonObject } from '../../lib/wal/format.js';

/** How a put reaches shardwal: HTTP, a standard SQS queue, or a FIFO queue's message group. */
type Transport = 'http' | 'sqs' | 'fifo';

/** One producer's put, retried as its transport would. */
export interface Intent {
  id: number;
  shard: string;
  arriveAt: number;
  transport: Transport;
  /** The Idempotency-Key (HTTP) or message id (SQS); undefined: a plain put, never retried. */
  idempotencyKey: string | undefined;
  durable: boolean;
  /** Key field of keyed rows. */
  keyField: string | undefined;
  rows: JsonObject[];
  /** Tag of the intent's rows (`t` member), unique per intent. */
  tag: string;
}

/** The knobs of one schedule, all derived from its seed unless shrunk. */
export interface ScheduleParams {
  seed: number;
  puts: number;
  shards: number;
  /** Virtual ms over which puts arrive. */
  spanMs: number;
  exports: number;
  verifies: number;
  rebuilds: number;
  bigPuts: number;
  /** Scheduler faults: kills and stalls of actors. */
  actorFaults: boolean;
  /** DynamoDB faults: throttles, 500s, lost responses (with the SDK's retries). */
  dynamoFaults: boolean;
  /** Object store faults: failures and lost acks. */
  storeFaults: boolean;
  /** Compressed batch bytes above which payloads spill to the object store; undefined: never. */
  spillBytes: number | undefined;
  /** Ticks claim ahead of a slot and resolve at it (K1 in `lib/ticker/claim-lead.ts`). */
  claimAhead: boolean;
  /**
   * Short item lifetimes (L5): a 6 s idempotency window makes batch items expire ~10 s after
   * their write, so the stall refusal and the scheduled verify's expiry extension matter.
   */
  expiry: boolean;
  /** Export and history retention set short, with more exports racing on the shards. */
  retention: boolean;
  /** SQS puts come through a FIFO queue, one message group per shard. */
  fifo: boolean;
  /** Tail readers started during the run (`tailShard`, no follow), from seqs near export boundaries. */
  readers: number;
  /** Idempotent HTTP puts go through `lib/client` (its retries under one Idempotency-Key). */
  viaClient: boolean;
  /**
   * With `expiry`: no tick and no size-triggered flush for longer than a batch item's lifetime
   * (a stopped ticker), so only the scheduled verify's expiry extension keeps pending batches.
   */
  flushOutage: boolean;
  /**
   * With `expiry`: one shard's record is restored from a backup taken a batch lifetime earlier
   * (a table restore), behind S3: puts reuse seqs S3 holds, the next flush poisons the shard,
   * and the operator's rebuild quarantines what it cannot flush.
   */
  recordRestore: boolean;
  /**
   * Iceberg tables over the shards (one each, or one gathering all): committers and maintenance
   * race the rest, and export lists table segments below each table's high-water (V16).
   */
  tables: boolean;
}

/** Draws a schedule's parameters from its seed. */
export function paramsFor(seed: number): ScheduleParams {
  const random = seededRandom(seed ^ 0x9e3779b9);
  const pick = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
  return {
    seed,
    puts: pick(6, 24),
    shards: pick(1, 3),
    spanMs: pick(2_000, 12_000),
    exports: pick(0, 3),
    verifies: pick(0, 2),
    rebuilds: random() < 0.3 ? 1 : 0,
    bigPuts: random() < 0.15 ? 1 : 0,
    actorFaults: random() < 0.85,
    dynamoFaults: random() < 0.8,
    storeFaults: random() < 0.7,
    // Drawn last, so the fields above stay what they were for every seed.
    spillBytes: random() < 0.5 ? undefined : random() < 0.5 ? 0 : 60,
    claimAhead: random() < 0.5,
    // Issue 20's areas, drawn after the fields above so those stay what they were.
    expiry: random() < 0.3,
    retention: random() < 0.35,
    fifo: random() < 0.3,
    readers: random() < 0.4 ? 1 + Math.floor(random() * 2) : 0,
    viaClient: random() < 0.3,
    // Drawn after the fields above so those stay what they were.
    flushOutage: random() < 0.5,
    recordRestore: random() < 0.35,
    // Drawn after the fields above so those stay what they were.
    tables: random() < 0.4,
  };
}

const KEY_POOL = ['k1', 'k2', 'k3', 'k4'];

/** Batch item lifetime of `expiry` schedules (`simConfig`'s, L5), for the restore's timing. */
const EXPIRY_BATCH_MS = 10_600;

/**
 * When a `recordRestore` schedule backs the record of shard s0 up, and when it restores it: a
 * batch lifetime and more later, so the items the backup saw allocated next have expired.
 */
export function restoreTimes(params: ScheduleParams): { backupAt: number; restoreAt: number } {
  const random = seededRandom(params.seed ^ 0x68e31da4);
  const backupAt = 500 + Math.floor(random() * Math.max(1, params.spanMs / 3));
  return { backupAt, restoreAt: backupAt + EXPIRY_BATCH_MS + 1_000 + Math.floor(random() * 3_000) };
}

/** A held export (D4 in `lib/export/deadline.ts`): its shard, and when it starts. */
interface HeldExport {
  shard: string;
  startAt: number;
}

/**
 * When the puts on a held export's shard arrive, from its start: the data of the export before
 * it (its base), its own, then each later export's (`run-schedule.ts` starts those exports).
 */
const HELD_PUT_OFFSETS_MS = [-3_400, -400, 50, 450];

/**
 * Whether a `retention` schedule holds one export for most of its deadline while two later
 * exports of its shard complete (`run-schedule.ts`), and where: its own stream, so the draws
 * of every other field stay what they were.
 */
export function heldExportFor(params: ScheduleParams): HeldExport | undefined {
  if (!params.retention) return undefined;
  const random = seededRandom(params.seed ^ 0x7f4a7c15);
  if (random() >= 0.6) return undefined;
  return {
    shard: `s${Math.floor(random() * params.shards)}`,
    startAt: 3_500 + Math.floor(random() * params.spanMs),
  };
}

/** The puts of a schedule, in arrival order. */
export function intentsFor(params: ScheduleParams): Intent[] {
  const random = seededRandom(params.seed ^ 0x85ebca6b);
  const intents: Intent[] = [];
  for (let id = 1; id <= params.puts; id++) {
    const shard = `s${Math.floor(random() ** 2 * params.shards)}`;
    // Not with short lifetimes: a FIFO message held back past its 6 s idempotency window lands
    // again as a new put (the scaled hold-backs reach it; the real ones stay inside 24 h).
    const fifo = params.fifo && !params.expiry;
    const transport: Transport = random() < 0.25 ? (fifo ? 'fifo' : 'sqs') : 'http';
    const idempotent = transport !== 'http' || random() < 0.6;
    const keyed = random() < 0.35;
    const tag = `p${id}`;
    const rows: JsonObject[] = [];
    const count = 1 + Math.floor(random() * 3);
    for (let i = 0; i < count; i++) {
      const row: JsonObject = { t: tag, i, v: Math.floor(random() * 1_000) };
      if (keyed) row.id = KEY_POOL[Math.floor(random() * KEY_POOL.length)]!;
      rows.push(row);
    }
    if (keyed && random() < 0.3) {
      rows.push({ id: KEY_POOL[Math.floor(random() * KEY_POOL.length)]!, $delete: true });
    }
    intents.push({
      id,
      shard,
      arriveAt: Math.floor(random() * params.spanMs),
      transport,
      idempotencyKey: idempotent ? `${transport}-${params.seed}-${id}` : undefined,
      durable: transport === 'http' && random() < 0.3,
      keyField: keyed ? 'id' : undefined,
      rows,
      tag,
    });
  }
  for (let b = 0; b < params.bigPuts && intents.length > 0; b++) {
    // Incompressible rows over one item's 350 KB: a multi-chunk batch.
    const intent = intents[Math.floor(random() * intents.length)]!;
    let text = '';
    while (text.length < 420_000) text += random().toString(36).slice(2);
    intent.rows = [{ t: intent.tag, i: 0, big: text }];
    intent.keyField = undefined;
  }
  if (params.expiry && params.recordRestore) {
    // Puts right after the restore, before the operator's rebuild: the restored record hands
    // them seqs S3 already holds (their items expired), which the rebuild quarantines.
    const { restoreAt } = restoreTimes(params);
    for (let n = 0; n < 3; n++) {
      const id = intents.length + 1;
      const tag = `p${id}`;
      const idempotent = random() < 0.5;
      intents.push({
        id,
        shard: 's0',
        arriveAt: restoreAt + 1 + Math.floor(random() * 400),
        transport: 'http',
        idempotencyKey: idempotent ? `http-${params.seed}-${id}` : undefined,
        durable: random() < 0.3,
        keyField: undefined,
        rows: [{ t: tag, i: 0, v: Math.floor(random() * 1_000) }],
        tag,
      });
    }
  }
  const held = heldExportFor(params);
  if (held) {
    // One put before each of the base export, the held one and the two later ones, on its
    // shard. Keyed: the base holds 8 keys, the held export changes one (no compaction: it names
    // the base's part), the first later export all 8 (a compaction: it names none of them).
    const heldRandom = seededRandom(params.seed ^ 0x1b873593);
    const keyed = heldRandom() < 0.8;
    for (const [n, offset] of HELD_PUT_OFFSETS_MS.entries()) {
      const id = intents.length + 1;
      const tag = `p${id}`;
      const count = n % 2 === 0 ? 8 : 1;
      const rows: JsonObject[] = Array.from({ length: count }, (_, i) => ({ t: tag, i, v: id }));
      if (keyed) for (const [i, row] of rows.entries()) row.id = `h${(i + n) % 8}`;
      intents.push({
        id,
        shard: held.shard,
        arriveAt: held.startAt + offset,
        transport: 'http',
        idempotencyKey: heldRandom() < 0.5 ? `http-${params.seed}-${id}` : undefined,
        durable: false,
        keyField: keyed ? 'id' : undefined,
        rows,
        tag,
      });
    }
  }
  return intents.sort((a, b) => a.arriveAt - b.arriveAt || a.id - b.id);
}
