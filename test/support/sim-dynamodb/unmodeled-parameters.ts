/**
 * Request parameters this model does not implement. Each is refused with a
 * ValidationException naming it, never ignored: a silently missing
 * ConsumedCapacity would corrupt a cost figure, a silently ignored legacy
 * condition would let a write through that DynamoDB refuses.
 */
import { validationError } from './sdk-errors.js';

/** Pre-expression parameters: shardwal never sends them. */
const LEGACY = [
  'Expected',
  'AttributesToGet',
  'AttributeUpdates',
  'ConditionalOperator',
  'KeyConditions',
  'QueryFilter',
  'ScanFilter',
] as const;

/** Parameters that change the response in ways not modeled, unless set to their neutral value. */
const UNMODELED: readonly (readonly [string, string])[] = [
  ['ReturnConsumedCapacity', 'NONE'],
  ['ReturnItemCollectionMetrics', 'NONE'],
];

/** Throws ValidationException when `input` carries a parameter the model would have to ignore. */
export function refuseUnmodeled(input: object): void {
  const given = input as Record<string, unknown>;
  for (const name of LEGACY) {
    if (given[name] !== undefined) {
      throw validationError(`MemoryDynamoDB does not model the legacy parameter ${name}`);
    }
  }
  for (const [name, neutral] of UNMODELED) {
    if (given[name] !== undefined && given[name] !== neutral) {
      throw validationError(`MemoryDynamoDB does not model ${name}=${String(given[name])}`);
    }
  }
}
