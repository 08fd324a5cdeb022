/**
 * Batches (and quarantined batches) are a head item followed by its
 * continuation chunks in sort-key order. Every reader of them groups the
 * same way; this is that grouping, once.
 */
import { str } from './shard-record.js';
import type { Item } from './table.js';

/** A head item with the chunk items that follow it. */
export interface ItemGroup {
  head: Item;
  /** The head's sort key. */
  sk: string;
  /** Payload parts in order: the head's `data`, then each chunk's. */
  payload: Uint8Array[];
  /** Sort keys of the head and its chunks. */
  itemKeys: string[];
}

/** Groups ascending items into heads and their chunks; chunks before any head are skipped. */
export async function* groupChunks(
  items: AsyncIterable<Item>,
  isChunk: (sk: string) => boolean,
): AsyncGenerator<ItemGroup, void, undefined> {
  let group: ItemGroup | undefined;
  for await (const item of items) {
    const sk = str(item, 'sk') ?? '';
    if (isChunk(sk)) {
      if (group) {
        group.payload.push(item.data?.B ?? new Uint8Array());
        group.itemKeys.push(sk);
      }
      continue;
    }
    if (group) yield group;
    group = { head: item, sk, payload: item.data?.B ? [item.data.B] : [], itemKeys: [sk] };
  }
  if (group) yield group;
}
