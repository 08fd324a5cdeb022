/**
 * The DynamoDB side of shardwal's deterministic simulation.
 *
 * Contract:
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
export { DynamoFault, type FaultSettings, FaultyDynamoClient } from './faulty-dynamo-client.js';
export {
  type AppliedInfo,
  type ApplyInfo,
  type DynamoSender,
  MemoryDynamoDB,
  type MemoryDynamoDBOptions,
} from './memory-dynamodb.js';
export { clientFixture } from './memory-fixture.js';
export { classifyRetryError, SDK_RETRY } from './sdk-retry.js';
