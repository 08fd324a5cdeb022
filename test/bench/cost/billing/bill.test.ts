import { describe, expect, it } from 'vitest';
import {
  anchorUsdPerGb,
  apiGatewayRequests,
  bill,
  GIB,
  sqsRequests,
} from '../../../../bench/cost/billing/bill.js';
import {
  dynamoDbThroughputCost,
  provisionedCapacity,
} from '../../../../bench/cost/billing/dynamodb-pricing.js';
import { PRICES_US_EAST_1, type PriceTable } from '../../../../bench/cost/billing/prices.js';
import { InvalidInputError } from '../../../../lib/errors.js';

const KB = 1024;

/** The real table with round prices, so the arithmetic below is checkable by eye. */
function roundPrices(): PriceTable {
  const p = structuredClone(PRICES_US_EAST_1) as unknown as PriceTable;
  p.dynamodb.writeRequestUnit = { ...p.dynamodb.writeRequestUnit, usd: 1, per: 1_000_000 };
  p.dynamodb.readRequestUnit = { ...p.dynamodb.readRequestUnit, usd: 0.25, per: 1_000_000 };
  p.dynamodb.writeCapacityUnitHour = { ...p.dynamodb.writeCapacityUnitHour, usd: 0.001, per: 1 };
  p.dynamodb.readCapacityUnitHour = { ...p.dynamodb.readCapacityUnitHour, usd: 0.0002, per: 1 };
  p.s3.putCopyPostList = { ...p.s3.putCopyPostList, usd: 0.005, per: 1000 };
  p.apiGateway.httpApiRequest = { ...p.apiGateway.httpApiRequest, usd: 1, per: 1_000_000 };
  p.sqs.standardRequest = { ...p.sqs.standardRequest, usd: 0.4, per: 1_000_000 };
  p.cloudwatch.logsIngestedGb = { ...p.cloudwatch.logsIngestedGb, usd: 0.5, per: 1 };
  p.anchors.kinesisOnDemandIngestGb = { ...p.anchors.kinesisOnDemandIngestGb, usd: 0.08, per: 1 };
  p.anchors.firehoseIngestGb = { ...p.anchors.firehoseIngestGb, usd: 0.03, per: 1 };
  return p;
}

describe('bill', () => {
  describe('apiGatewayRequests', () => {
    it('meters in 512 KB increments: 513 KB is two requests', () => {
      expect(apiGatewayRequests(512 * KB)).toBe(1);
      expect(apiGatewayRequests(513 * KB)).toBe(2);
      expect(apiGatewayRequests(2 * 1024 * KB)).toBe(4);
    });

    it('charges one request for an empty body', () => {
      expect(apiGatewayRequests(0)).toBe(1);
    });

    it('throws InvalidInputError when the size is negative', () => {
      expect(() => apiGatewayRequests(-1)).toThrow(InvalidInputError);
    });
  });

  describe('sqsRequests', () => {
    it('bills each 64 KB chunk as a request: 256 KB is four', () => {
      expect(sqsRequests(1)).toBe(1);
      expect(sqsRequests(64 * KB)).toBe(1);
      expect(sqsRequests(64 * KB + 1)).toBe(2);
      expect(sqsRequests(256 * KB)).toBe(4);
    });
  });

  describe('bill', () => {
    it('prices each line and states USD per GB of raw bytes', () => {
      const result = bill(
        {
          rawBytes: 2 * GIB,
          dynamodb: {
            units: { writeUnits: 3_000_000, indexWriteUnits: 1_000_000, readUnits: 4_000_000 },
          },
          s3: { putCopyPostListRequests: 2000, deleteRequests: 10 },
          apiGateway: { requestBodyBytes: [100, 513 * KB] },
          sqs: { standardRequestBytes: [256 * KB] },
          cloudwatch: { logsIngestedBytes: GIB },
        },
        roundPrices(),
      );
      const usd = Object.fromEntries(
        result.lines.map((l) => [`${l.component}.${l.item}`, Number(l.usd.toPrecision(12))]),
      );
      expect(usd).toEqual({
        'dynamodb.writes': 3,
        'dynamodb.index-writes': 1,
        'dynamodb.reads': 1,
        's3.put-copy-post-list': 0.01,
        's3.delete': 0,
        'api-gateway.requests': 3e-6,
        'sqs.standard': 1.6e-6,
        'cloudwatch.logs-ingested': 0.5,
      });
      expect(result.byComponent.dynamodb).toBe(5);
      expect(result.totalUsd).toBeCloseTo(5.5100046, 9);
      expect(result.gbIngested).toBe(2);
      expect(result.usdPerGb).toBeCloseTo(5.5100046 / 2, 9);
      expect(result.byComponentUsdPerGb.dynamodb).toBe(2.5);
    });

    it('leaves out what was not used', () => {
      const result = bill({ rawBytes: GIB, s3: { putCopyPostListRequests: 1000 } }, roundPrices());
      expect(result.lines.map((l) => l.item)).toEqual(['put-copy-post-list']);
      expect(result.usdPerGb).toBe(0.005);
    });

    it('prices provisioned capacity by the steady capacity at the target utilisation', () => {
      const result = bill(
        {
          rawBytes: GIB,
          dynamodb: {
            units: { writeUnits: 3600, indexWriteUnits: 0, readUnits: 0 },
            mode: { mode: 'provisioned', durationSeconds: 3600, targetUtilisation: 0.5 },
          },
        },
        roundPrices(),
      );
      // one unit per second at 50 % needs 2 WCU for one hour
      expect(result.totalUsd).toBeCloseTo(0.002, 12);
      expect(result.lines[0]?.unit).toMatch(/provisioned at 0.5/);
    });

    it('throws InvalidInputError when no bytes were ingested', () => {
      expect(() => bill({ rawBytes: 0 }, roundPrices())).toThrow(InvalidInputError);
    });

    it('throws InvalidInputError when a quantity is negative', () => {
      expect(() => bill({ rawBytes: 1, scheduler: { invocations: -1 } }, roundPrices())).toThrow(
        InvalidInputError,
      );
    });
  });

  describe('anchorUsdPerGb', () => {
    it('rounds each record up to 1 KB for Kinesis and 5 KB for Firehose', () => {
      const anchors = anchorUsdPerGb([1000, 1000], roundPrices());
      expect(anchors.kinesisOnDemand).toBeCloseTo(0.08 * 1.024, 12);
      expect(anchors.firehose).toBeCloseTo(0.03 * 5.12, 12);
    });
  });

  describe('provisionedCapacity', () => {
    it('divides the rate by the target utilisation', () => {
      expect(provisionedCapacity(700, 10, 0.7)).toBeCloseTo(100, 12);
    });

    it('throws InvalidInputError when the utilisation is outside (0, 1]', () => {
      expect(() => provisionedCapacity(1, 1, 0)).toThrow(InvalidInputError);
      expect(() => provisionedCapacity(1, 1, 1.5)).toThrow(InvalidInputError);
      expect(() => provisionedCapacity(1, 0, 0.5)).toThrow(InvalidInputError);
    });
  });

  describe('dynamoDbThroughputCost', () => {
    it('prices index writes like table writes', () => {
      const cost = dynamoDbThroughputCost(
        { writeUnits: 1e6, indexWriteUnits: 1e6, readUnits: 0 },
        { mode: 'on-demand' },
        roundPrices(),
      );
      expect(cost.indexWritesUsd).toBe(cost.writesUsd);
    });
  });
});
