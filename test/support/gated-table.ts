/**
 * A `Table` whose DynamoDB client can hold chosen commands at a gate, so a
 * test can keep one request in flight while another runs.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Table } from '../../lib/memtable/table.js';

/** A table handle plus the gate controls. */
export interface GatedTable {
  table: Table;
  /** Holds the next commands `match` accepts until `open()`; resolves when one is held. */
  close: (match: (command: unknown) => boolean) => Promise<void>;
  open: () => void;
}

/** Wraps `table`'s client. */
export function gatedTable(table: Table): GatedTable {
  let match: ((command: unknown) => boolean) | undefined;
  let release: (() => void) | undefined;
  let gate: Promise<void> = Promise.resolve();
  let held: (() => void) | undefined;
  const client = {
    send: async (command: unknown) => {
      if (match?.(command)) {
        held?.();
        await gate;
      }
      // biome-ignore lint/suspicious/noExplicitAny: forwarding any command unchanged
      return table.client.send(command as any);
    },
  } as unknown as DynamoDBClient;
  return {
    table: { ...table, client },
    close: (accept) => {
      match = accept;
      gate = new Promise((resolve) => {
        release = resolve;
      });
      return new Promise((resolve) => {
        held = resolve;
      });
    },
    open: () => {
      match = undefined;
      held = undefined;
      release?.();
    },
  };
}
