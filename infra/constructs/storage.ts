/**
 * The service's state: one DynamoDB table (shard records, batches,
 * idempotency records) and one bucket (WAL objects and AOF exports). Both are
 * retained when the stack is deleted: they hold the only copy of the data.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import {
  AttributeType,
  BillingMode,
  ProjectionType,
  Table,
  TableEncryption,
} from 'aws-cdk-lib/aws-dynamodb';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';

/** Names the table layout shares with `lib/memtable/table.ts`. */
export const TABLE_LAYOUT = {
  partitionKey: 'pk',
  sortKey: 'sk',
  pendingIndex: 'pending',
  pendingPartitionKey: 'pendingPk',
  pendingSortKey: 'pendingShard',
  ttlAttribute: 'expiresAt',
} as const;

/**
 * Days a deleted (noncurrent) object version is kept. Retention deletes WAL
 * objects below the export watermark; if that logic were ever wrong, a delete
 * is the one irreversible step in the design. Versioning turns it into a
 * delete marker that can be removed to restore the object for this long.
 */
export const NONCURRENT_VERSION_DAYS = 30;

/** Days an incomplete multipart upload may linger (parts are billed until aborted). */
export const ABORT_MULTIPART_DAYS = 7;

/** Days server access logs are kept. */
export const ACCESS_LOG_DAYS = 90;

/** The table and the bucket. */
export class Storage extends Construct {
  readonly table: Table;
  readonly bucket: Bucket;
  readonly accessLogBucket: Bucket;

  constructor(scope: Construct, id: string) {
    super(scope, id);

    this.table = new Table(this, 'Table', {
      partitionKey: { name: TABLE_LAYOUT.partitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE_LAYOUT.sortKey, type: AttributeType.STRING },
      // Load follows producers and active shards; on-demand needs no capacity planning.
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      // The aws/dynamodb key: KMS-audited access at no key cost.
      encryption: TableEncryption.AWS_MANAGED,
      timeToLiveAttribute: TABLE_LAYOUT.ttlAttribute,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // Sparse: only shard records with pending data carry `pendingPk`, so a tick
    // costs O(active shards). Keys are all a tick needs; it reads the record itself.
    this.table.addGlobalSecondaryIndex({
      indexName: TABLE_LAYOUT.pendingIndex,
      partitionKey: { name: TABLE_LAYOUT.pendingPartitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE_LAYOUT.pendingSortKey, type: AttributeType.STRING },
      projectionType: ProjectionType.KEYS_ONLY,
    });

    // The data bucket's server access logs. cdk-nag S1 holds this bucket
    // compliant as the destination; logging it to itself would loop.
    this.accessLogBucket = new Bucket(this, 'AccessLogs', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      encryption: BucketEncryption.S3_MANAGED,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ id: 'expire-access-logs', expiration: Duration.days(ACCESS_LOG_DAYS) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      // SSE-S3, not SSE-KMS: the cost model counts one PUT per active shard per
      // tick; KMS would add a billed request per PUT/GET and a key policy to
      // keep in step, for no access control that the prefix-scoped IAM grants
      // do not already give.
      encryption: BucketEncryption.S3_MANAGED,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      // WAL objects are written create-if-absent and never overwritten, so
      // versioning costs nothing for live objects; it only keeps the versions
      // retention deletes, for NONCURRENT_VERSION_DAYS (see above).
      versioned: true,
      lifecycleRules: [
        {
          // Never expires or transitions a current object: every live WAL object
          // and export may still be needed by recovery.
          id: 'housekeeping',
          abortIncompleteMultipartUploadAfter: Duration.days(ABORT_MULTIPART_DAYS),
          noncurrentVersionExpiration: Duration.days(NONCURRENT_VERSION_DAYS),
          expiredObjectDeleteMarker: true,
        },
      ],
      serverAccessLogsBucket: this.accessLogBucket,
      serverAccessLogsPrefix: 'data-bucket/',
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }
}
