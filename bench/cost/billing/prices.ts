/**
 * The one dated table of AWS list prices that every cost figure in shardwal
 * is multiplied by. Region us-east-1, USD, standard (non-free-tier) rates of
 * the first volume tier: a benchmark states marginal cost per GB, so free
 * tiers and volume discounts are left out on purpose.
 *
 * Each row says where its figure came from and how well it is confirmed:
 * - `aws`: the figure is in AWS's own page or documentation, as read;
 * - `third-party`: AWS's page could not be read in full here; the figure is
 *   from the named third-party page quoting AWS's us-east-1 rate;
 * - `unconfirmed`: no readable source confirmed the figure; it is the rate
 *   AWS's page is understood to list, kept so the table is complete, and
 *   must be checked before it is quoted.
 * Re-read the sources and bump `readOn` when prices change.
 */

/** How a price row's figure was confirmed. */
export const PriceBasis = {
  aws: 'aws',
  thirdParty: 'third-party',
  unconfirmed: 'unconfirmed',
} as const;
export type PriceBasis = (typeof PriceBasis)[keyof typeof PriceBasis];

/** One list price: `usd` for every `per` units of `unit`. */
export interface PriceRow {
  usd: number;
  per: number;
  unit: string;
  /** The page the figure was read from (AWS's page first when both were read). */
  source: string;
  /** Date the source shows for itself, when it shows one (YYYY-MM-DD or YYYY-MM). */
  sourceDate?: string;
  basis: PriceBasis;
  note?: string;
}

/** Every price a shardwal bill uses. */
export interface PriceTable {
  region: string;
  currency: 'USD';
  /** Date the sources were read (YYYY-MM-DD). */
  readOn: string;
  dynamodb: {
    writeRequestUnit: PriceRow;
    readRequestUnit: PriceRow;
    writeCapacityUnitHour: PriceRow;
    readCapacityUnitHour: PriceRow;
    storageGbMonth: PriceRow;
    pitrGbMonth: PriceRow;
  };
  s3: {
    putCopyPostList: PriceRow;
    get: PriceRow;
    delete: PriceRow;
    storageGbMonth: PriceRow;
  };
  lambda: { arm64GbSecond: PriceRow; x86GbSecond: PriceRow; request: PriceRow };
  apiGateway: { httpApiRequest: PriceRow };
  sqs: { standardRequest: PriceRow; fifoRequest: PriceRow };
  cloudwatch: {
    logsIngestedGb: PriceRow;
    logsStorageGbMonth: PriceRow;
    customMetricMonth: PriceRow;
    alarmMonth: PriceRow;
  };
  scheduler: { invocation: PriceRow };
  anchors: { kinesisOnDemandIngestGb: PriceRow; firehoseIngestGb: PriceRow };
}

const DDB_ON_DEMAND = 'https://aws.amazon.com/dynamodb/pricing/on-demand/';
const DDB_PROVISIONED = 'https://aws.amazon.com/dynamodb/pricing/provisioned/';
const S3_PRICING = 'https://aws.amazon.com/s3/pricing/';
const LAMBDA_PRICING = 'https://aws.amazon.com/lambda/pricing/';
const CW_PRICING = 'https://aws.amazon.com/cloudwatch/pricing/';

/** List prices for us-east-1, read on the date below. */
export const PRICES_US_EAST_1 = {
  region: 'us-east-1',
  currency: 'USD',
  readOn: '2026-11-30',
  dynamodb: {
    writeRequestUnit: {
      usd: 0.625,
      per: 1_000_000,
      unit: 'on-demand write request unit (standard table class)',
      source: 'https://airbyte.com/data-engineering-resources/dynamodb-pricing',
      sourceDate: '2025-07-21',
      basis: PriceBasis.thirdParty,
      note: `after the November 2024 on-demand price cut; AWS page ${DDB_ON_DEMAND} read without its rate table`,
    },
    readRequestUnit: {
      usd: 0.125,
      per: 1_000_000,
      unit: 'on-demand read request unit (standard table class)',
      source: 'https://airbyte.com/data-engineering-resources/dynamodb-pricing',
      sourceDate: '2025-07-21',
      basis: PriceBasis.thirdParty,
      note: `as writeRequestUnit; AWS page ${DDB_ON_DEMAND}`,
    },
    writeCapacityUnitHour: {
      usd: 0.00065,
      per: 1,
      unit: 'provisioned WCU-hour',
      source: DDB_PROVISIONED,
      basis: PriceBasis.unconfirmed,
      note: 'the readable copies of the provisioned page lacked the rate table',
    },
    readCapacityUnitHour: {
      usd: 0.00013,
      per: 1,
      unit: 'provisioned RCU-hour',
      source: DDB_PROVISIONED,
      basis: PriceBasis.unconfirmed,
      note: 'as writeCapacityUnitHour',
    },
    storageGbMonth: {
      usd: 0.25,
      per: 1,
      unit: 'GB-month of table storage (standard table class)',
      source: 'https://aws.amazon.com/dynamodb/pricing/',
      basis: PriceBasis.aws,
      note: '"The first 25 GB consumed per month is free, and prices start from $0.25 per GB-month thereafter"',
    },
    pitrGbMonth: {
      usd: 0.2,
      per: 1,
      unit: 'GB-month of continuous backup (point-in-time recovery)',
      source: 'https://finops.com.py/services/dynamodb/backups',
      basis: PriceBasis.thirdParty,
      note: 'billed on table size',
    },
  },
  s3: {
    putCopyPostList: {
      usd: 0.005,
      per: 1_000,
      unit: 'S3 Standard PUT, COPY, POST or LIST request',
      source: 'https://c3x.dev/blog/s3-request-fees-explained',
      basis: PriceBasis.thirdParty,
      note: `AWS page ${S3_PRICING} read without its rate table`,
    },
    get: {
      usd: 0.0004,
      per: 1_000,
      unit: 'S3 Standard GET, HEAD or SELECT request',
      source: 'https://c3x.dev/blog/s3-request-fees-explained',
      basis: PriceBasis.thirdParty,
      note: `AWS page ${S3_PRICING}`,
    },
    delete: {
      usd: 0,
      per: 1_000,
      unit: 'S3 DELETE request',
      source: 'https://aws.amazon.com/s3/faqs/',
      basis: PriceBasis.aws,
      note: '"Amazon S3 doesn\'t charge you for removing objects"',
    },
    storageGbMonth: {
      usd: 0.023,
      per: 1,
      unit: 'GB-month of S3 Standard storage (first 50 TB)',
      source: 'https://cloudburn.io/blog/amazon-s3-pricing',
      sourceDate: '2026-03-13',
      basis: PriceBasis.thirdParty,
    },
  },
  lambda: {
    arm64GbSecond: {
      usd: 0.0000133334,
      per: 1,
      unit: 'Lambda arm64 GB-second (first 7.5 billion GB-s/month)',
      source: 'https://cloudchipr.com/blog/aws-lambda-pricing',
      basis: PriceBasis.thirdParty,
      note: `AWS page ${LAMBDA_PRICING} read without its rate table`,
    },
    x86GbSecond: {
      usd: 0.0000166667,
      per: 1,
      unit: 'Lambda x86_64 GB-second (first 6 billion GB-s/month)',
      source: 'https://cloudchipr.com/blog/aws-lambda-pricing',
      basis: PriceBasis.thirdParty,
      note: `AWS page ${LAMBDA_PRICING}`,
    },
    request: {
      usd: 0.2,
      per: 1_000_000,
      unit: 'Lambda request',
      source: 'https://cloudchipr.com/blog/aws-lambda-pricing',
      basis: PriceBasis.thirdParty,
    },
  },
  apiGateway: {
    httpApiRequest: {
      usd: 1.0,
      per: 1_000_000,
      unit: 'HTTP API request, metered in 512 KB increments (first 300 million/month)',
      source: 'https://awsforengineers.com/blog/aws-api-gateway-pricing-explained',
      sourceDate: '2025-05-19',
      basis: PriceBasis.thirdParty,
      note: 'the 512 KB metering is confirmed by AWS: https://docs.aws.amazon.com/whitepapers/latest/best-practices-api-gateway-private-apis-integration/cost-optimization.html',
    },
  },
  sqs: {
    standardRequest: {
      usd: 0.4,
      per: 1_000_000,
      unit: 'SQS standard queue request, each 64 KB chunk of payload one request',
      source: 'https://www.factualminds.com/blog/amazon-sqs-pricing-64kb-rule-fifo-vs-standard/',
      sourceDate: '2026-06-13',
      basis: PriceBasis.thirdParty,
    },
    fifoRequest: {
      usd: 0.5,
      per: 1_000_000,
      unit: 'SQS FIFO queue request, each 64 KB chunk of payload one request',
      source: 'https://www.factualminds.com/blog/amazon-sqs-pricing-64kb-rule-fifo-vs-standard/',
      sourceDate: '2026-06-13',
      basis: PriceBasis.thirdParty,
    },
  },
  cloudwatch: {
    logsIngestedGb: {
      usd: 0.5,
      per: 1,
      unit: 'GB of CloudWatch Logs ingested (standard log class)',
      source:
        'https://www.factualminds.com/blog/amazon-cloudwatch-pricing-metrics-logs-alarms-dashboards/',
      sourceDate: '2026-06-13',
      basis: PriceBasis.thirdParty,
      note: `AWS page ${CW_PRICING} read without its rate table`,
    },
    logsStorageGbMonth: {
      usd: 0.03,
      per: 1,
      unit: 'GB-month of CloudWatch Logs archived storage',
      source: CW_PRICING,
      basis: PriceBasis.unconfirmed,
      note: 'no readable source confirmed the figure',
    },
    customMetricMonth: {
      usd: 0.3,
      per: 1,
      unit: 'custom metric-month (first 10,000 metrics)',
      source: 'https://signoz.io/guides/cloudwatch-pricing',
      sourceDate: '2026-02-15',
      basis: PriceBasis.thirdParty,
    },
    alarmMonth: {
      usd: 0.1,
      per: 1,
      unit: 'standard-resolution alarm metric-month',
      source: CW_PRICING,
      basis: PriceBasis.unconfirmed,
      note: 'no readable source confirmed the figure',
    },
  },
  scheduler: {
    invocation: {
      usd: 1.0,
      per: 1_000_000,
      unit: 'EventBridge Scheduler invocation (after 14 million free per month)',
      source: 'https://cloudburn.io/blog/amazon-eventbridge-pricing',
      sourceDate: '2026-03-13',
      basis: PriceBasis.thirdParty,
      note: 'one third-party page (wring.co) calls Scheduler invocations free; two others give $1.00/M after 14M free',
    },
  },
  anchors: {
    kinesisOnDemandIngestGb: {
      usd: 0.08,
      per: 1,
      unit: 'GB ingested by Kinesis Data Streams on-demand, each record rounded up to 1 KB',
      source: 'https://aws.amazon.com/kinesis/data-streams/pricing/',
      basis: PriceBasis.unconfirmed,
      note: 'AWS page confirms the 1 KB record rounding, not the figure; excludes the per-stream hourly charge and reads',
    },
    firehoseIngestGb: {
      usd: 0.029,
      per: 1,
      unit: 'GB ingested by Data Firehose Direct PUT, each record rounded up to 5 KB (first 500 TB)',
      source: 'https://aws.amazon.com/kinesis/data-firehose/pricing/',
      basis: PriceBasis.unconfirmed,
      note: 'AWS page confirms the 5 KB record rounding, not the figure',
    },
  },
} as const satisfies PriceTable;

/** USD for `quantity` units at `row`. */
export function priceOf(row: PriceRow, quantity: number): number {
  return (quantity * row.usd) / row.per;
}
