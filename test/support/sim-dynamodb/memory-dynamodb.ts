/**
 * The DynamoDB side of shardwal's deterministic simulation.
 *
 * Contract of `test/support/sim-dynamodb/`:
 * - `MemoryDynamoDB` answers the real `@aws-sdk/client-dynamodb` commands
 *   shardwal sends (CreateTable, DescribeTable, GetItem, PutItem, UpdateItem,
 *   DeleteItem, Query incl. a GSI, Scan, BatchWriteItem, Update/Describe
 *   TimeToLive) as DynamoDB does: same outputs, same SDK-shaped errors
 *   (ConditionalCheckFailedException / ValidationException /
 *   ResourceNotFoundException, 400). Differential tests against dynalite
 *   (`memory-dynamodb.test.ts`, `expressions.test.ts`) hold it to that.
 * - Each request applies atomically between `beforeApply` and `afterApply`,
 *   so a scheduler decides the order of concurrent requests and can fail a
 *   request after it applied. Nothing reads the wall clock or Math.random.
 * - Returned items are deep copies; stored items are never mutated.
 * - `FaultyDynamoClient` injects seeded throttles, 500s, lost responses and
 *   latency, and replays the SDK's standard retries (`sdk-retry.ts`).
 * - Commands and parameters outside the model are refused loudly
 *   (UnknownOperationException, ValidationException naming the parameter).
 *
 * Where it knowingly differs from DynamoDB:
 * - Reads are always strongly consistent, GSIs included (DynamoDB's GSIs are
 *   eventually consistent; a simulation that wants index lag must add it).
 * - TTL deletes only when the simulation calls `expireTtl`.
 * - Page sizes use an item-size estimate (DynamoDB's published rules; numbers
 *   approximate), so the 1 MB cut is approximate.
 * - Not modeled: transactions, BatchGetItem, LSIs, parallel Scan, Scan of an
 *   index, streams, consumed capacity.
 * Where it knowingly differs from dynalite (and follows DynamoDB): empty
 * strings and binaries and false BOOLs are values, not absences; ordering two
 * missing attributes is false; non-key strings compare by UTF-8 bytes;
 * `size()` of a string counts UTF-8 bytes; a REMOVE-only update of a missing
 * item creates nothing; SET copies values rather than aliasing them.
 */
/**
 * An in-memory DynamoDB for deterministic simulation: `send` takes the real
 * `@aws-sdk/client-dynamodb` command objects and answers what DynamoDB would,
 * outputs and SDK-shaped errors alike, for the subset shardwal uses (the
 * contract above). Cast it to `DynamoDBClient` where a `Table` wants one.
 *
 * Scheduling: each request applies atomically, synchronously, between the
 * `beforeApply` and `afterApply` hooks. A simulation scheduler parks a
 * caller in `beforeApply` to choose the order in which concurrent requests
 * apply; `afterApply` runs after the write landed and before the caller sees
 * the response, so a test can crash, delay or drop the response there.
 */
import {
  BatchWriteItemCommand,
  CreateTableCommand,
  type CreateTableCommandInput,
  DeleteItemCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  ScanCommand,
  UpdateItemCommand,
  UpdateTimeToLiveCommand,
  type UpdateTimeToLiveCommandInput,
} from '@aws-sdk/client-dynamodb';
import { cloneItem, type Item } from './attribute-values.js';
import { compareNumbers } from './decimal.js';
import { batchWriteItem, deleteItem, getItem, putItem, updateItem } from './item-operations.js';
import { type PageLimits, queryPage, scanPage } from './read-pages.js';
import {
  resourceInUse,
  resourceNotFound,
  unknownOperation,
  validationError,
} from './sdk-errors.js';
import { describeTable, tableSchema } from './table-schema.js';
import { TableStore } from './table-store.js';
import { refuseUnmodeled } from './unmodeled-parameters.js';

/** The operations modeled, by SDK command name minus `Command`. */
const DynamoOperation = {
  CreateTable: 'CreateTable',
  DescribeTable: 'DescribeTable',
  GetItem: 'GetItem',
  PutItem: 'PutItem',
  UpdateItem: 'UpdateItem',
  DeleteItem: 'DeleteItem',
  Query: 'Query',
  Scan: 'Scan',
  BatchWriteItem: 'BatchWriteItem',
  UpdateTimeToLive: 'UpdateTimeToLive',
  DescribeTimeToLive: 'DescribeTimeToLive',
} as const;
type DynamoOperation = (typeof DynamoOperation)[keyof typeof DynamoOperation];

/** Any SDK command object: what `send` receives. */
export interface DynamoCommand {
  input: object;
}

/** Anything with a DynamoDB client's `send`: a `DynamoDBClient`, this, or a decorator. */
export interface DynamoSender {
  // biome-ignore lint/suspicious/noExplicitAny: any SDK command in, its output out
  send: (command: any) => Promise<any>;
}

/** What the hooks learn about a request. */
interface ApplyInfo {
  operation: DynamoOperation;
  /** The table named by the request (the first one for BatchWriteItem). */
  tableName: string | undefined;
  /** 1-based order in which requests reached this instance. */
  requestNumber: number;
}

/** What `afterApply` learns: the request and its outcome (exactly one of output, error). */
interface AppliedInfo extends ApplyInfo {
  output?: unknown;
  error?: unknown;
}

/** Settings of `MemoryDynamoDB`. */
export interface MemoryDynamoDBOptions {
  /** Runs before each request applies; the request waits for it. */
  beforeApply?: (command: DynamoCommand, info: ApplyInfo) => Promise<void> | void;
  /** Runs after each request applied (or failed), before its caller gets the outcome; a throw replaces it. */
  afterApply?: (command: DynamoCommand, info: AppliedInfo) => Promise<void> | void;
  /** Items per Query/Scan page at most (default unbounded): small values force pagination. */
  maxPageItems?: number;
  /** Bytes per Query/Scan page, estimated (default 1 MiB, DynamoDB's cap). */
  maxPageBytes?: number;
}

type Handler = (db: MemoryDynamoDB, input: never) => object;

const HANDLERS = new Map<unknown, [DynamoOperation, Handler]>([
  [CreateTableCommand, ['CreateTable', (db, input) => db.createTable(input)]],
  [
    DescribeTableCommand,
    ['DescribeTable', (db, input: { TableName?: string }) => db.describe(input)],
  ],
  [GetItemCommand, ['GetItem', (db, input) => getItem(db.table(input), input)]],
  [PutItemCommand, ['PutItem', (db, input) => putItem(db.table(input), input)]],
  [UpdateItemCommand, ['UpdateItem', (db, input) => updateItem(db.table(input), input)]],
  [DeleteItemCommand, ['DeleteItem', (db, input) => deleteItem(db.table(input), input)]],
  [QueryCommand, ['Query', (db, input) => queryPage(db.table(input), input, db.pageLimits)]],
  [ScanCommand, ['Scan', (db, input) => scanPage(db.table(input), input, db.pageLimits)]],
  [
    BatchWriteItemCommand,
    [
      'BatchWriteItem',
      (db, input) => batchWriteItem((name) => db.table({ TableName: name }), input),
    ],
  ],
  [UpdateTimeToLiveCommand, ['UpdateTimeToLive', (db, input) => db.updateTimeToLive(input)]],
  [
    DescribeTimeToLiveCommand,
    ['DescribeTimeToLive', (db, input: { TableName?: string }) => db.describeTimeToLive(input)],
  ],
]);
const HANDLERS_BY_NAME = new Map(
  [...HANDLERS].map(([command, handler]) => [(command as { name: string }).name, handler]),
);

/** An in-memory DynamoDB with the `send` of a `DynamoDBClient`. */
export class MemoryDynamoDB {
  /** Page limits applied to every Query and Scan. */
  readonly pageLimits: PageLimits;
  readonly #tables = new Map<string, TableStore>();
  readonly #before: MemoryDynamoDBOptions['beforeApply'];
  readonly #after: MemoryDynamoDBOptions['afterApply'];
  #requests = 0;

  constructor(options: MemoryDynamoDBOptions = {}) {
    this.#before = options.beforeApply;
    this.#after = options.afterApply;
    this.pageLimits = {
      maxPageItems: options.maxPageItems ?? Number.POSITIVE_INFINITY,
      maxPageBytes: options.maxPageBytes ?? 1024 * 1024,
    };
  }

  /** Applies one SDK command; resolves to its output or rejects with DynamoDB's error. */
  // biome-ignore lint/suspicious/noExplicitAny: a drop-in for DynamoDBClient.send, whose outputs are per command
  async send(command: DynamoCommand): Promise<any> {
    const ctor = (command as { constructor?: { name?: string } }).constructor;
    const entry = HANDLERS.get(ctor) ?? HANDLERS_BY_NAME.get(ctor?.name ?? '');
    if (!entry) throw unknownOperation(ctor?.name ?? typeof command);
    const [operation, handler] = entry;
    const input = command.input as { TableName?: string; RequestItems?: object };
    const info: ApplyInfo = {
      operation,
      tableName: input.TableName ?? Object.keys(input.RequestItems ?? {})[0],
      requestNumber: ++this.#requests,
    };
    if (this.#before) await this.#before(command, info);
    let output: object | undefined;
    let error: unknown;
    try {
      refuseUnmodeled(input);
      output = {
        ...handler(this, input as never),
        $metadata: {
          httpStatusCode: 200,
          requestId: `mem-${info.requestNumber}`,
          attempts: 1,
          totalRetryDelay: 0,
        },
      };
    } catch (thrown) {
      error = thrown;
    }
    if (this.#after) await this.#after(command, { ...info, output, error });
    if (error !== undefined) throw error;
    return output;
  }

  /** Nothing to release; present because callers `destroy()` their clients. */
  destroy(): void {}

  /** The table a request names; ResourceNotFoundException when there is none. */
  table(input: { TableName?: string }): TableStore {
    const store = this.#tables.get(input.TableName ?? '');
    if (!store) throw resourceNotFound(input.TableName ?? '', false);
    return store;
  }

  /** CreateTable: the table is ACTIVE at once. */
  createTable(input: CreateTableCommandInput): object {
    const schema = tableSchema(input);
    if (this.#tables.has(schema.name)) throw resourceInUse(schema.name);
    const store = new TableStore(schema);
    this.#tables.set(schema.name, store);
    return { TableDescription: describeTable(schema, 0, 0) };
  }

  /** DescribeTable. */
  describe(input: { TableName?: string }): object {
    const store = this.#tables.get(input.TableName ?? '');
    if (!store) throw resourceNotFound(input.TableName ?? '', true);
    return { Table: describeTable(store.schema, store.count, store.sizeBytes()) };
  }

  /** UpdateTimeToLive: records the setting; items expire only through `expireTtl`. */
  updateTimeToLive(input: UpdateTimeToLiveCommandInput): object {
    const store = this.table(input);
    const spec = input.TimeToLiveSpecification;
    if (!spec?.AttributeName || spec.Enabled === undefined) {
      throw validationError('TimeToLiveSpecification needs AttributeName and Enabled');
    }
    if ((store.ttl?.enabled ?? false) === spec.Enabled) {
      throw validationError(`TimeToLive is already ${spec.Enabled ? 'enabled' : 'disabled'}`);
    }
    store.ttl = { attributeName: spec.AttributeName, enabled: spec.Enabled };
    return { TimeToLiveSpecification: { ...spec } };
  }

  /** DescribeTimeToLive. */
  describeTimeToLive(input: { TableName?: string }): object {
    const ttl = this.table(input).ttl;
    return {
      TimeToLiveDescription: ttl?.enabled
        ? { TimeToLiveStatus: 'ENABLED', AttributeName: ttl.attributeName }
        : { TimeToLiveStatus: 'DISABLED' },
    };
  }

  /**
   * DynamoDB's TTL sweeper, run when the simulation says: deletes the items
   * whose TTL attribute is a number of epoch seconds below `nowSeconds`.
   * Returns how many it deleted. No-op while TTL is disabled.
   */
  expireTtl(tableName: string, nowSeconds: number): number {
    const store = this.table({ TableName: tableName });
    const name = store.ttl?.enabled ? store.ttl.attributeName : undefined;
    if (name === undefined) return 0;
    const expired = this.#all(store).filter((item) => {
      const at = item[name]?.N;
      return at !== undefined && compareNumbers(at, String(nowSeconds)) < 0;
    });
    for (const item of expired) {
      store.delete(Object.fromEntries(store.schema.keyNames.map((k) => [k, item[k]!])));
    }
    return expired.length;
  }

  /** Every item of `tableName`, in Scan order, as deep copies (for assertions and dumps). */
  items(tableName: string): Item[] {
    return this.#all(this.table({ TableName: tableName })).map(cloneItem);
  }

  #all(store: TableStore): Item[] {
    return store.partitions.scanOrder().flatMap((partition) => partition.items);
  }
}
