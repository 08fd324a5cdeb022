/**
 * Large batches spill their payload to S3 (issue 10's break-even): above
 * `thresholdBytes` of compressed payload, one S3 PUT plus a small pointer
 * item costs less than the write units of the item itself.
 *
 * S1. The payload object is written before the batch head, create-if-absent,
 *     at a key no other put can name (`spillKey`: the seq and the put's own
 *     id). The head is still the batch's commit point: a put that dies
 *     between the two leaves an orphan object that nothing references, and
 *     the lifecycle rule removes it.
 * S2. The head records the object's key, byte length and SHA-256; a reader
 *     checks both before decoding, so a batch reads back exactly as written
 *     or fails loudly (CorruptDataError), never differently.
 * S3. Objects live `SPILL_LIFECYCLE_DAYS` (a bucket lifecycle rule), longer
 *     than any batch item (L5 in `lib/liveness.ts`: about a day, plus
 *     DynamoDB's TTL delay). A pending batch of a stalled shard outlives its
 *     item's first expiry (verify extends it); its payload is copied to a
 *     fresh key once its object is half the lifecycle old (`respillAged`),
 *     so a pending batch never loses its payload.
 * S4. Readers that copy a batch to keep it (quarantine) inline the payload:
 *     a copy never points at an object the lifecycle will remove.
 */
import { createHash } from 'node:crypto';
import type { ShardwalConfig } from '../config.js';
import { CorruptDataError } from '../errors.js';
import { spillKey } from '../paths.js';
import type { ObjectStore } from '../store/object-store.js';

/** Whole days a spilled payload object is kept (the bucket's lifecycle rule on `spill/`). */
export const SPILL_LIFECYCLE_DAYS = 4;

/**
 * Days the lifecycle rule keeps an expired spill object as a noncurrent
 * version (the bucket is versioned; `infra/constructs/storage.ts`). Spilled
 * payloads are most of the bytes ingested, each is read back by the flush
 * that inlines it into the WAL, and a pending batch's payload is copied to a
 * fresh key long before it expires (`RESPILL_AGE_MS`): an expired one is
 * garbage, and 30 days of versions would bill every ingested byte for a
 * month. S3 applies the shorter of two overlapping expirations, so this
 * beats the bucket's 30-day noncurrent rule.
 */
export const SPILL_NONCURRENT_DAYS = 1;

/** A pending batch's object older than this is copied to a fresh key (S3): half the lifecycle. */
export const RESPILL_AGE_MS = (SPILL_LIFECYCLE_DAYS * 86_400_000) / 2;

/** Where and when large payloads spill. */
export interface PayloadSpill {
  /** The object store (built on first use: a put below the threshold never needs it). */
  store: () => ObjectStore;
  /**
   * Compressed payloads larger than this many bytes spill; undefined: none
   * does, but batches spilled before spilling was switched off still read.
   */
  thresholdBytes: number | undefined;
}

/**
 * The spill of `config` over `store`. With spilling off it still reads: a
 * deployment that switches it off keeps flushing the batches spilled before.
 */
export function payloadSpill(
  config: Pick<ShardwalConfig, 'spillBytes'>,
  store: () => ObjectStore,
): PayloadSpill {
  return { store, thresholdBytes: config.spillBytes };
}

/** What a batch head records about its spilled payload (S2). */
export interface SpillRef {
  key: string;
  bytes: number;
  /** SHA-256 of the payload, lowercase hex. */
  sha256: string;
}

/** Whether a compressed payload of `bytes` spills under `spill`. */
export function spills(spill: PayloadSpill | undefined, bytes: number): spill is PayloadSpill {
  return spill?.thresholdBytes !== undefined && bytes > spill.thresholdBytes;
}

function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Writes `payload` as the spilled payload of batch `seq` of `shard` for put
 * `putId` (S1). An object already there was written by this put's own
 * earlier attempt (the key is the put's alone); its bytes are checked.
 */
export async function writeSpill(
  store: ObjectStore,
  shard: string,
  seq: number,
  putId: string,
  payload: Uint8Array,
  copy?: number,
): Promise<SpillRef> {
  const ref: SpillRef = {
    key: spillKey(shard, seq, putId, copy),
    bytes: payload.length,
    sha256: sha256Hex(payload),
  };
  if ((await store.putIfAbsent(ref.key, payload)) === 'exists') {
    // Our own attempt whose response was lost; anything else there is damage.
    await readSpill(store, ref);
  }
  return ref;
}

/** Reads a spilled payload and checks it against its reference (S2). */
export async function readSpill(store: ObjectStore, ref: SpillRef): Promise<Uint8Array> {
  const payload = await store.get(ref.key);
  if (payload === undefined) {
    throw new CorruptDataError(
      ref.key,
      'spilled batch payload is missing (removed by the lifecycle rule before the batch was flushed?)',
    );
  }
  if (payload.length !== ref.bytes || sha256Hex(payload) !== ref.sha256) {
    throw new CorruptDataError(
      ref.key,
      `spilled batch payload does not match its batch item (${payload.length} bytes, expected ${ref.bytes} with SHA-256 ${ref.sha256})`,
    );
  }
  return payload;
}
