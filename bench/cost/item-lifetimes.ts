/**
 * How long each DynamoDB item lives, for the storage line of the bill
 * (DynamoDB bills GB-months of table size; point-in-time recovery bills the
 * same size again). A client decorator placed under the meter notes, on the
 * virtual clock, when each item is first written and when it is deleted;
 * at the end a scan finds what is still there and which items carry the TTL
 * attribute. An item's storage is its billed size times its lifetime:
 * - deleted by a request: until that request;
 * - carrying the TTL attribute: until that time, plus the delay DynamoDB
 *   takes to remove expired items (an assumption, stated by the caller);
 * - neither: for good (shard records; anything else is a leak to report).
 * This measures whatever the code does: when batch items move from deletes
 * to TTL, the figures follow without a change here.
 */
import {
  type BatchWriteItemCommandInput,
  type BatchWriteItemCommandOutput,
  type DeleteItemCommandInput,
  type PutItemCommandInput,
  ScanCommand,
  type ScanCommandOutput,
  type UpdateItemCommandInput,
} from '@aws-sdk/client-dynamodb';
import { isBatchSk } from '../../lib/memtable/table.js';
import { type Item, itemStorageBytes } from './billing/item-size.js';
import type { CommandSender } from './billing/table-schema.js';

/** What an item is, from its key (`lib/memtable/table.ts`). */
export const ItemClass = {
  batch: 'batch',
  shardRecord: 'shard-record',
  idempotency: 'idempotency',
  other: 'other',
} as const;
export type ItemClass = (typeof ItemClass)[keyof typeof ItemClass];

/** The class of the item with partition key `pk` and sort key `sk`. */
export function itemClass(pk: string, sk: string): ItemClass {
  if (pk.startsWith('idem#')) return ItemClass.idempotency;
  if (sk === 'meta') return ItemClass.shardRecord;
  if (isBatchSk(sk)) return ItemClass.batch;
  return ItemClass.other;
}

/** Storage of one class of items. */
export interface ClassStorage {
  items: number;
  /** Items removed by a delete request. */
  deleted: number;
  /** Items still there carrying the TTL attribute, and their billed bytes. */
  expiring: number;
  expiringBytes: number;
  /** Items still there with no TTL attribute: they stay for good. */
  permanent: number;
  permanentBytes: number;
  /** Σ billed bytes × seconds lived, for deleted and expiring items (TTL delay included). */
  byteSeconds: number;
  /** Mean seconds from write to delete (deleted) or to expiry (expiring, without the TTL delay). */
  meanLifetimeSeconds: number;
}

interface Tracked {
  firstWriteMs: number;
  /** Billed storage bytes of the last full image written (PutItem), when known. */
  storageBytes: number | undefined;
  deletedAtMs?: number;
}

/** Notes item writes and deletes; forwards every command unchanged. */
export class ItemLifetimes implements CommandSender {
  readonly #inner: CommandSender;
  readonly #now: () => number;
  readonly #items = new Map<string, Tracked>();

  constructor(inner: CommandSender, now: () => number) {
    this.#inner = inner;
    this.#now = now;
  }

  // biome-ignore lint/suspicious/noExplicitAny: any DynamoDB command, forwarded unchanged
  async send(command: any): Promise<any> {
    const out = await this.#inner.send(command);
    const name = command?.constructor?.name as string | undefined;
    const input = command?.input;
    if (name === 'PutItemCommand') this.#written((input as PutItemCommandInput).Item!, true);
    else if (name === 'UpdateItemCommand')
      this.#written((input as UpdateItemCommandInput).Key!, false);
    else if (name === 'DeleteItemCommand') this.#deleted((input as DeleteItemCommandInput).Key!);
    else if (name === 'BatchWriteItemCommand') this.#batch(input, out);
    return out;
  }

  /**
   * Storage per item class: scans `tableName` (through the inner client,
   * unmetered) for what is still there; `ttlAttribute` holds epoch seconds;
   * `ttlDelaySeconds` is added to every expiring item's life.
   */
  async storage(
    tableName: string,
    ttlAttribute: string,
    ttlDelaySeconds: number,
  ): Promise<Record<ItemClass, ClassStorage>> {
    const out = Object.fromEntries(
      Object.values(ItemClass).map((c) => [c, emptyStorage()]),
    ) as Record<ItemClass, ClassStorage>;
    const lifetimes = Object.fromEntries(Object.values(ItemClass).map((c) => [c, 0])) as Record<
      ItemClass,
      number
    >;
    const present = new Set<string>();
    let startKey: Item | undefined;
    do {
      const page = (await this.#inner.send(
        new ScanCommand({ TableName: tableName, ExclusiveStartKey: startKey }),
      )) as ScanCommandOutput;
      for (const item of page.Items ?? []) {
        const key = keyString(item);
        present.add(key);
        const cls = classOf(item);
        const s = out[cls];
        const bytes = itemStorageBytes(item);
        s.items += 1;
        const ttl = item[ttlAttribute]?.N;
        const tracked = this.#items.get(key);
        if (ttl === undefined) {
          s.permanent += 1;
          s.permanentBytes += bytes;
          continue;
        }
        s.expiring += 1;
        s.expiringBytes += bytes;
        const livedSeconds = Math.max(
          0,
          Number(ttl) - (tracked?.firstWriteMs ?? this.#now()) / 1000,
        );
        lifetimes[cls] += livedSeconds;
        s.byteSeconds += bytes * (livedSeconds + ttlDelaySeconds);
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    for (const [key, tracked] of this.#items) {
      if (tracked.deletedAtMs === undefined || present.has(key)) continue;
      const [pk, sk] = JSON.parse(key) as [string, string];
      const s = out[itemClass(pk, sk)];
      const livedSeconds = (tracked.deletedAtMs - tracked.firstWriteMs) / 1000;
      s.items += 1;
      s.deleted += 1;
      lifetimes[itemClass(pk, sk)] += livedSeconds;
      s.byteSeconds += (tracked.storageBytes ?? 0) * livedSeconds;
    }
    for (const cls of Object.values(ItemClass)) {
      const lived = out[cls].deleted + out[cls].expiring;
      out[cls].meanLifetimeSeconds = lived > 0 ? lifetimes[cls] / lived : 0;
    }
    return out;
  }

  #written(item: Item, fullImage: boolean): void {
    const key = keyString(item);
    const nowMs = this.#now();
    const tracked = this.#items.get(key);
    if (!tracked || tracked.deletedAtMs !== undefined) {
      this.#items.set(key, {
        firstWriteMs: nowMs,
        storageBytes: fullImage ? itemStorageBytes(item) : undefined,
      });
    } else if (fullImage) {
      tracked.storageBytes = itemStorageBytes(item);
    }
  }

  #deleted(key: Item): void {
    const tracked = this.#items.get(keyString(key));
    if (tracked && tracked.deletedAtMs === undefined) tracked.deletedAtMs = this.#now();
  }

  #batch(input: BatchWriteItemCommandInput, out: BatchWriteItemCommandOutput): void {
    const unprocessed = new Set<string>();
    for (const requests of Object.values(out?.UnprocessedItems ?? {})) {
      for (const r of requests) {
        unprocessed.add(keyString(r.PutRequest?.Item ?? r.DeleteRequest!.Key!));
      }
    }
    for (const requests of Object.values(input.RequestItems ?? {})) {
      for (const r of requests) {
        const item = r.PutRequest?.Item ?? r.DeleteRequest!.Key!;
        if (unprocessed.has(keyString(item))) continue;
        if (r.PutRequest) this.#written(item, true);
        else this.#deleted(item);
      }
    }
  }
}

function emptyStorage(): ClassStorage {
  return {
    items: 0,
    deleted: 0,
    expiring: 0,
    expiringBytes: 0,
    permanent: 0,
    permanentBytes: 0,
    byteSeconds: 0,
    meanLifetimeSeconds: 0,
  };
}

function keyString(item: Item): string {
  return JSON.stringify([item.pk?.S ?? '', item.sk?.S ?? '']);
}

function classOf(item: Item): ItemClass {
  return itemClass(item.pk?.S ?? '', item.sk?.S ?? '');
}
