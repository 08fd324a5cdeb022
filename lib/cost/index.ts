/**
 * Cost: capacity units times a dated price table, never request counts.
 *
 * Contract:
 * - `item-size`, `dynamodb-units`, `index-units`: DynamoDB's documented
 *   billing rules as pure functions, each rule citing its page;
 * - `metered-dynamodb`: a client decorator that runs shardwal's real
 *   requests and records the units DynamoDB would bill, per label and
 *   operation (`meter-ledger`);
 * - `prices`: the one dated us-east-1 price table, each row with its source
 *   and how well the figure is confirmed;
 * - `bill`, `dynamodb-pricing`: usage times prices, per component and per GB
 *   of raw row JSON ingested (GB = 2^30 bytes).
 */
export * from './bill.js';
export * from './dynamodb-pricing.js';
export * from './dynamodb-units.js';
export * from './index-units.js';
export * from './item-size.js';
export * from './meter-ledger.js';
export * from './metered-dynamodb.js';
export * from './prices.js';
