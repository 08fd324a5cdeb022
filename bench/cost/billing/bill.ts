/**
 * Turns measured usage into a per-component USD bill and USD per GB
 * ingested, at a dated price table (`prices.ts`). "GB ingested" is
 * 2^30 bytes of raw row JSON as producers sent it (before compression), the
 * figure a user compares with other ingestion services.
 *
 * Request metering rules applied here:
 * - API Gateway HTTP APIs are "metered in 512 KB increments" (AWS whitepaper
 *   "Best practices for designing private APIs", Cost optimization, Table 4:
 *   https://docs.aws.amazon.com/whitepapers/latest/best-practices-api-gateway-private-apis-integration/cost-optimization.html);
 * - SQS bills "each 64 KB chunk of a payload" as one request
 *   (https://aws.amazon.com/sqs/pricing/, as quoted by the pages cited in prices.ts);
 * - Kinesis Data Streams rounds each record up to 1 KB and Firehose to 5 KB
 *   (https://aws.amazon.com/kinesis/data-streams/pricing/,
 *   https://aws.amazon.com/kinesis/data-firehose/pricing/).
 */
import { InvalidInputError } from '../../../lib/errors.js';
import {
  type CapacityMode,
  type DynamoDbUnits,
  dynamoDbThroughputCost,
} from './dynamodb-pricing.js';
import { type PriceRow, type PriceTable, priceOf } from './prices.js';

/** Bytes in the GB of "USD per GB" (and of every per-GB price). */
export const GIB = 2 ** 30;
/** API Gateway HTTP API metering increment. */
const API_GATEWAY_INCREMENT_BYTES = 512 * 1024;
/** SQS billing chunk. */
const SQS_CHUNK_BYTES = 64 * 1024;
/** Kinesis Data Streams record rounding. */
const KINESIS_RECORD_BYTES = 1024;
/** Firehose record rounding. */
const FIREHOSE_RECORD_BYTES = 5 * 1024;

/** Billed API Gateway HTTP API requests for one request of `bodyBytes` (513 KB is two). */
export function apiGatewayRequests(bodyBytes: number): number {
  return chunks(bodyBytes, API_GATEWAY_INCREMENT_BYTES, 'bodyBytes');
}

/** Billed SQS requests for one API call carrying `messageBytes` of payload (256 KB is four). */
export function sqsRequests(messageBytes: number): number {
  return chunks(messageBytes, SQS_CHUNK_BYTES, 'messageBytes');
}

/** Everything a run consumed, by service. Omitted services cost nothing. */
export interface Usage {
  /** Raw row JSON bytes ingested: the denominator of USD/GB. */
  rawBytes: number;
  dynamodb?: {
    units: DynamoDbUnits;
    /** On-demand unless given. */
    mode?: CapacityMode;
    storageGbMonths?: number;
    pitrGbMonths?: number;
  };
  s3?: {
    /** PUT, COPY, POST and LIST requests (one price tier). */
    putCopyPostListRequests?: number;
    /** GET, HEAD and SELECT requests. */
    getRequests?: number;
    deleteRequests?: number;
    storageGbMonths?: number;
  };
  lambda?: { arm64GbSeconds?: number; x86GbSeconds?: number; requests?: number };
  /** Body bytes of each HTTP API request. */
  apiGateway?: { requestBodyBytes: readonly number[] };
  /** Payload bytes of each SQS API call, by queue type. */
  sqs?: { standardRequestBytes?: readonly number[]; fifoRequestBytes?: readonly number[] };
  cloudwatch?: {
    logsIngestedBytes?: number;
    logsStorageGbMonths?: number;
    customMetricMonths?: number;
    alarmMonths?: number;
  };
  scheduler?: { invocations: number };
}

/** One priced quantity. */
interface BillLine {
  component: string;
  item: string;
  quantity: number;
  unit: string;
  usd: number;
}

/** A priced run. */
export interface Bill {
  region: string;
  pricesReadOn: string;
  /** Non-zero lines, in component order. */
  lines: BillLine[];
  /** USD per component. */
  byComponent: Record<string, number>;
  totalUsd: number;
  gbIngested: number;
  usdPerGb: number;
  /** USD per GB ingested, per component. */
  byComponentUsdPerGb: Record<string, number>;
}

/** Prices `usage` at `prices`. */
export function bill(usage: Usage, prices: PriceTable): Bill {
  if (!(usage.rawBytes > 0)) {
    throw new InvalidInputError('rawBytes', `expected > 0 bytes ingested, got ${usage.rawBytes}`);
  }
  const lines: BillLine[] = [];
  const add = (component: string, item: string, row: PriceRow, quantity = 0) => {
    assertQuantity(`${component}.${item}`, quantity);
    if (quantity > 0) {
      lines.push({ component, item, quantity, unit: row.unit, usd: priceOf(row, quantity) });
    }
  };
  const ddb = usage.dynamodb;
  if (ddb) addDynamoDb(lines, ddb.units, ddb.mode ?? { mode: 'on-demand' }, prices);
  add('dynamodb', 'storage', prices.dynamodb.storageGbMonth, ddb?.storageGbMonths);
  add('dynamodb', 'pitr', prices.dynamodb.pitrGbMonth, ddb?.pitrGbMonths);
  add('s3', 'put-copy-post-list', prices.s3.putCopyPostList, usage.s3?.putCopyPostListRequests);
  add('s3', 'get', prices.s3.get, usage.s3?.getRequests);
  add('s3', 'delete', prices.s3.delete, usage.s3?.deleteRequests);
  add('s3', 'storage', prices.s3.storageGbMonth, usage.s3?.storageGbMonths);
  add('lambda', 'arm64', prices.lambda.arm64GbSecond, usage.lambda?.arm64GbSeconds);
  add('lambda', 'x86', prices.lambda.x86GbSecond, usage.lambda?.x86GbSeconds);
  add('lambda', 'requests', prices.lambda.request, usage.lambda?.requests);
  const api = usage.apiGateway?.requestBodyBytes ?? [];
  add('api-gateway', 'requests', prices.apiGateway.httpApiRequest, sumOf(api, apiGatewayRequests));
  const sqs = usage.sqs;
  add('sqs', 'standard', prices.sqs.standardRequest, sumOf(sqs?.standardRequestBytes, sqsRequests));
  add('sqs', 'fifo', prices.sqs.fifoRequest, sumOf(sqs?.fifoRequestBytes, sqsRequests));
  const cw = usage.cloudwatch;
  add(
    'cloudwatch',
    'logs-ingested',
    prices.cloudwatch.logsIngestedGb,
    (cw?.logsIngestedBytes ?? 0) / GIB,
  );
  add('cloudwatch', 'logs-storage', prices.cloudwatch.logsStorageGbMonth, cw?.logsStorageGbMonths);
  add('cloudwatch', 'metrics', prices.cloudwatch.customMetricMonth, cw?.customMetricMonths);
  add('cloudwatch', 'alarms', prices.cloudwatch.alarmMonth, cw?.alarmMonths);
  add('scheduler', 'invocations', prices.scheduler.invocation, usage.scheduler?.invocations);

  const byComponent: Record<string, number> = {};
  for (const line of lines)
    byComponent[line.component] = (byComponent[line.component] ?? 0) + line.usd;
  const totalUsd = lines.reduce((sum, line) => sum + line.usd, 0);
  const gbIngested = usage.rawBytes / GIB;
  const byComponentUsdPerGb = Object.fromEntries(
    Object.entries(byComponent).map(([component, usd]) => [component, usd / gbIngested]),
  );
  return {
    region: prices.region,
    pricesReadOn: prices.readOn,
    lines,
    byComponent,
    totalUsd,
    gbIngested,
    usdPerGb: totalUsd / gbIngested,
    byComponentUsdPerGb,
  };
}

/** USD per GB of raw bytes the comparison services would charge for the same records. */
export function anchorUsdPerGb(
  recordBytes: readonly number[],
  prices: PriceTable,
): { kinesisOnDemand: number; firehose: number } {
  const raw = recordBytes.reduce((sum, b) => sum + b, 0);
  if (!(raw > 0)) throw new InvalidInputError('recordBytes', `expected > 0 bytes, got ${raw}`);
  const billed = (unit: number) =>
    recordBytes.reduce((sum, b) => sum + chunks(b, unit, 'recordBytes') * unit, 0) / GIB;
  const { kinesisOnDemandIngestGb, firehoseIngestGb } = prices.anchors;
  return {
    kinesisOnDemand: priceOf(kinesisOnDemandIngestGb, billed(KINESIS_RECORD_BYTES)) / (raw / GIB),
    firehose: priceOf(firehoseIngestGb, billed(FIREHOSE_RECORD_BYTES)) / (raw / GIB),
  };
}

function addDynamoDb(
  lines: BillLine[],
  units: DynamoDbUnits,
  mode: CapacityMode,
  prices: PriceTable,
): void {
  assertQuantity('dynamodb.readUnits', units.readUnits);
  assertQuantity('dynamodb.writeUnits', units.writeUnits);
  assertQuantity('dynamodb.indexWriteUnits', units.indexWriteUnits);
  const cost = dynamoDbThroughputCost(units, mode, prices);
  const unit = (kind: 'read' | 'write') =>
    mode.mode === 'on-demand'
      ? `${kind} request unit (on-demand)`
      : `${kind} capacity unit consumed (provisioned at ${mode.targetUtilisation} utilisation)`;
  const rows: [string, number, number, 'read' | 'write'][] = [
    ['writes', units.writeUnits, cost.writesUsd, 'write'],
    ['index-writes', units.indexWriteUnits, cost.indexWritesUsd, 'write'],
    ['reads', units.readUnits, cost.readsUsd, 'read'],
  ];
  for (const [item, quantity, usd, kind] of rows) {
    if (quantity > 0) lines.push({ component: 'dynamodb', item, quantity, unit: unit(kind), usd });
  }
}

function chunks(bytes: number, chunkBytes: number, field: string): number {
  assertQuantity(field, bytes);
  return Math.max(1, Math.ceil(bytes / chunkBytes));
}

function sumOf(values: readonly number[] | undefined, per: (value: number) => number): number {
  let total = 0;
  for (const value of values ?? []) total += per(value);
  return total;
}

function assertQuantity(field: string, quantity: number): void {
  if (!Number.isFinite(quantity) || quantity < 0) {
    throw new InvalidInputError(field, `expected a quantity >= 0, got ${quantity}`);
  }
}
