/**
 * A DynamoDB client decorator that forwards every command unchanged and
 * records, per label and operation, the capacity units DynamoDB would bill
 * for it. It works against any client with `send` (dynalite locally, so a
 * benchmark measures the real put path and flusher without an AWS bill).
 *
 * How it knows what a request costs:
 * 1. the table's key schema and GSIs, read once per table by DescribeTable;
 * 2. for a write, the item before it (an uncounted side read just before the
 *    write) and after it (the request's item, ALL_NEW, or a side read after);
 * 3. for a projected or filtered read, the items the request evaluated (an
 *    uncounted side read).
 * The units then follow `dynamodb-units.ts` and `index-units.ts`. Side reads
 * are separate requests, so under concurrent writes to the same item the
 * "before" image can be a moment stale; the benchmark's concurrency is by
 * shard, which keeps that rare, and `sideReadMismatches` counts what is seen.
 *
 * Control-plane commands (DescribeTable, CreateTable, ...) are forwarded and
 * not billed. Any other command the meter has no rule for is refused, so a
 * new DynamoDB call in shardwal cannot go unbilled silently.
 */
import {
  BatchWriteItemCommand,
  CreateTableCommand,
  DeleteItemCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  type DynamoDBClient,
  GetItemCommand,
  ListTablesCommand,
  PutItemCommand,
  QueryCommand,
  ScanCommand,
  UpdateItemCommand,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { InternalError } from '../../../lib/errors.js';
import type { TableSchema } from './index-units.js';
import { type LedgerRow, type MeterCounters, MeterLedger } from './meter-ledger.js';
import { meterGetItem, meterQueryOrScan } from './meter-reads.js';
import {
  type MeterContext,
  meterBatchWriteItem,
  meterDeleteItem,
  meterPutItem,
  meterUpdateItem,
} from './meter-writes.js';
import { type CommandSender, describeTableSchema } from './table-schema.js';

const CONTROL_PLANE = [
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  ListTablesCommand,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
] as const;

/** Label of requests sent before any label was set. */
const DEFAULT_LABEL = 'unlabelled';

/** Meters the DynamoDB requests sent through its clients. */
export class MeteredDynamoDB {
  /** Label recorded for requests sent through `client` (set it between phases). */
  label: string;
  /** Side reads that saw a different number of items than the caller's page. */
  sideReadMismatches = 0;
  /** A client whose requests are recorded under the current `label`. */
  readonly client: DynamoDBClient;
  readonly #inner: CommandSender;
  readonly #ledger = new MeterLedger();
  readonly #schemas = new Map<string, Promise<TableSchema>>();

  constructor(inner: CommandSender, options: { label?: string } = {}) {
    this.#inner = inner;
    this.label = options.label ?? DEFAULT_LABEL;
    this.client = this.#clientFor(() => this.label);
  }

  /** A client whose requests are always recorded under `label`, sharing this meter's ledger. */
  labelled(label: string): DynamoDBClient {
    return this.#clientFor(() => label);
  }

  /** Every (label, operation) row so far. */
  rows(): LedgerRow[] {
    return this.#ledger.rows();
  }

  /** Totals of the rows matching `filter` (all when empty). */
  totals(filter: { label?: string; operation?: string } = {}): MeterCounters {
    return this.#ledger.totals(filter);
  }

  /** Forgets the ledger (table schemas stay cached). */
  reset(): void {
    this.#ledger.reset();
    this.sideReadMismatches = 0;
  }

  #clientFor(label: () => string): DynamoDBClient {
    const client = { send: (command: unknown) => this.#send(command, label()) };
    return client as unknown as DynamoDBClient;
  }

  async #send(command: unknown, label: string): Promise<unknown> {
    const ctx: MeterContext = {
      inner: this.#inner,
      schema: (tableName) => this.#schema(tableName),
      record: (operation, counters) => this.#ledger.record(label, operation, counters),
      mismatch: () => {
        this.sideReadMismatches++;
      },
    };
    if (command instanceof PutItemCommand) return meterPutItem(ctx, command);
    if (command instanceof UpdateItemCommand) return meterUpdateItem(ctx, command);
    if (command instanceof DeleteItemCommand) return meterDeleteItem(ctx, command);
    if (command instanceof BatchWriteItemCommand) return meterBatchWriteItem(ctx, command);
    if (command instanceof GetItemCommand) return meterGetItem(ctx, command);
    if (command instanceof QueryCommand) return meterQueryOrScan(ctx, command, 'Query');
    if (command instanceof ScanCommand) return meterQueryOrScan(ctx, command, 'Scan');
    if (CONTROL_PLANE.some((type) => command instanceof type)) return this.#inner.send(command);
    const name = (command as { constructor?: { name?: string } })?.constructor?.name;
    throw new InternalError(
      `metered DynamoDB: no billing rule for ${name ?? typeof command}; add one before sending it`,
    );
  }

  #schema(tableName: string): Promise<TableSchema> {
    let schema = this.#schemas.get(tableName);
    if (!schema) {
      schema = describeTableSchema(this.#inner, tableName);
      // A failed describe (table not there yet) is retried by the next request.
      schema.catch(() => this.#schemas.delete(tableName));
      this.#schemas.set(tableName, schema);
    }
    return schema;
  }
}
