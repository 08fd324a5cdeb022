/**
 * Errors shaped exactly like the ones `@aws-sdk/client-dynamodb` throws, so
 * shardwal's adapter (`lib/memtable/table.ts`) translates them as it would in
 * production: the SDK's own exception classes where the SDK models the error,
 * and its generic `DynamoDBServiceException` (what the SDK builds for an
 * unmodeled error code such as `ValidationException`) otherwise. Messages are
 * DynamoDB's (as dynalite reproduces them).
 */
import {
  type AttributeValue,
  ConditionalCheckFailedException,
  DynamoDBServiceException,
  ResourceInUseException,
  ResourceNotFoundException,
} from '@aws-sdk/client-dynamodb';

/** What the SDK puts in `$metadata` of a 400 response. */
function clientFault() {
  return { httpStatusCode: 400, attempts: 1, totalRetryDelay: 0 };
}

/** A request DynamoDB refuses as invalid (400). */
export function validationError(message: string): DynamoDBServiceException {
  return new DynamoDBServiceException({
    name: 'ValidationException',
    $fault: 'client',
    $metadata: clientFault(),
    message,
  });
}

/** A condition that did not hold (400); `item` when ReturnValuesOnConditionCheckFailure asked for it. */
export function conditionalCheckFailed(
  item?: Record<string, AttributeValue>,
): ConditionalCheckFailedException {
  return new ConditionalCheckFailedException({
    $metadata: clientFault(),
    message: 'The conditional request failed',
    Item: item,
  });
}

/** An unknown table (400). */
export function resourceNotFound(tableName: string, describe: boolean): ResourceNotFoundException {
  const message = describe
    ? `Requested resource not found: Table: ${tableName} not found`
    : 'Requested resource not found';
  return new ResourceNotFoundException({ $metadata: clientFault(), message });
}

/** A table that already exists (400). */
export function resourceInUse(tableName: string): ResourceInUseException {
  return new ResourceInUseException({
    $metadata: clientFault(),
    message: `Table already exists: ${tableName}`,
  });
}

/** A command this in-memory DynamoDB does not model: what DynamoDB answers an unknown operation. */
export function unknownOperation(name: string): DynamoDBServiceException {
  return new DynamoDBServiceException({
    name: 'UnknownOperationException',
    $fault: 'client',
    $metadata: clientFault(),
    message: `MemoryDynamoDB does not model ${name}`,
  });
}
