/**
 * The service's state: one DynamoDB table (shard records, batches,
 * idempotency records) and one bucket (WAL objects, exports and spilled batch
 * payloads) with its own access-log bucket. All three are retained when the
 * stack is deleted: they hold the only copy of the data and its audit trail.
 * The bucket policy refuses any overwrite of history (`bucket-policy.ts`).
 * The table is on demand or provisioned with auto scaling (`table-capacity.ts`).
 */
import { Annotations, Duration, RemovalPolicy } from 'aws-cdk-lib';
import {
  AttributeType,
  type ITable,
  ProjectionType,
  Table,
  TableEncryption,
} from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  type IBucket,
  ObjectOwnership,
} from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { SPILL_LIFECYCLE_DAYS, SPILL_NONCURRENT_DAYS } from '../../lib/memtable/spill.js';
import { SPILL_PREFIX } from '../../lib/paths.js';
import type { ProvisionedCapacity } from '../capacity-settings.js';
import { denyOverwrites } from './bucket-policy.js';
import { autoScaleTable, indexCapacity, tableBilling } from './table-capacity.js';

/** Names the table layout shares with `lib/memtable/table.ts`. */
export const TABLE_LAYOUT = {
  partitionKey: 'pk',
  sortKey: 'sk',
  pendingIndex: 'pending',
  pendingPartitionKey: 'pendingPk',
  pendingSortKey: 'pendingShard',
  registryIndex: 'registry',
  registryPartitionKey: 'registryPk',
  registrySortKey: 'registryShard',
  ttlAttribute: 'expiresAt',
} as const;

/**
 * Days a deleted (noncurrent) object version is kept. Retention deletes WAL
 * objects below the export watermark, superseded manifests and snapshot
 * parts, and segments past the history retention; if that logic were ever
 * wrong, a delete is the one irreversible step in the design. Versioning
 * turns it into a delete marker that can be removed to restore the object
 * for this long; the lifecycle rule below then expires the noncurrent
 * version. So the bucket stores, besides its live objects, everything
 * retention deleted in the last NONCURRENT_VERSION_DAYS (docs/recovery.md
 * counts it).
 */
const NONCURRENT_VERSION_DAYS = 30;

/** Days an incomplete multipart upload may linger (parts are billed until aborted). */
const ABORT_MULTIPART_DAYS = 7;

/** Days server access logs are kept. */
const ACCESS_LOG_DAYS = 90;

/** Id of the synth warning when the bucket is the app's: the guardrails are the app's to keep. */
export const BROUGHT_BUCKET_WARNING = '@shardwal/storage:broughtBucket';

/** Props of `Storage`. */
export interface StorageProps {
  /** Provisioned capacity of the table and its indexes; undefined on demand. */
  capacity?: ProvisionedCapacity | undefined;
  /** An existing table with shardwal's layout (`TABLE_LAYOUT`) instead of a new one. */
  table?: ITable | undefined;
  /** An existing bucket instead of a new one (and its access-log bucket). */
  bucket?: IBucket | undefined;
  /** What deleting the stack does to the table, the buckets (and `Queues` the ingest queues); default RETAIN. */
  removalPolicy?: RemovalPolicy | undefined;
  /** The table's deletion protection; default on. */
  deletionProtection?: boolean | undefined;
  /** A customer managed key for the table and the data bucket; unset, AWS managed (table) and SSE-S3. */
  key?: IKey | undefined;
}

/** The table and the bucket. */
export class Storage extends Construct {
  readonly table: ITable;
  readonly bucket: IBucket;
  /** The table when this construct created it (undefined when the app brought one). */
  readonly ownTable: Table | undefined;
  /** The bucket when this construct created it. */
  readonly ownBucket: Bucket | undefined;
  /** The data bucket's access-log bucket, when this construct created the data bucket. */
  readonly accessLogBucket: Bucket | undefined;

  constructor(scope: Construct, id: string, props: StorageProps = {}) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    this.ownTable = props.table ? undefined : this.#createTable(props, removalPolicy);
    this.table = props.table ?? this.ownTable!;
    if (props.bucket) {
      this.bucket = props.bucket;
      this.ownBucket = undefined;
      this.accessLogBucket = undefined;
      Annotations.of(this).addWarningV2(
        BROUGHT_BUCKET_WARNING,
        'shardwal: the bucket is brought by the app, so this construct adds none of its guardrails: the bucket policy denying overwrites of WAL, export and spill keys (IMMUTABLE_KEY_PATTERNS, DENY_OVERWRITE_CONDITIONS), TLS only, versioning and the lifecycle rules. Give the bucket those (docs/deploy.md, "Bring your own"), then acknowledge this warning.',
      );
      return;
    }
    const { bucket, accessLogBucket } = this.#createBuckets(removalPolicy, props.key);
    this.ownBucket = bucket;
    this.bucket = bucket;
    this.accessLogBucket = accessLogBucket;
  }

  #createTable(props: StorageProps, removalPolicy: RemovalPolicy): Table {
    const table = new Table(this, 'Table', {
      partitionKey: { name: TABLE_LAYOUT.partitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE_LAYOUT.sortKey, type: AttributeType.STRING },
      // On demand unless the settings provision capacity (table-capacity.ts).
      ...tableBilling(props.capacity),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: props.deletionProtection ?? true,
      // The aws/dynamodb key: KMS-audited access at no key cost; or the app's own key.
      ...(props.key
        ? { encryption: TableEncryption.CUSTOMER_MANAGED, encryptionKey: props.key }
        : { encryption: TableEncryption.AWS_MANAGED }),
      timeToLiveAttribute: TABLE_LAYOUT.ttlAttribute,
      removalPolicy,
    });
    // Sparse: only shard records with pending data carry `pendingPk`, so a tick
    // costs O(active shards). Keys are all a tick needs; it reads the record itself.
    table.addGlobalSecondaryIndex({
      indexName: TABLE_LAYOUT.pendingIndex,
      partitionKey: { name: TABLE_LAYOUT.pendingPartitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE_LAYOUT.pendingSortKey, type: AttributeType.STRING },
      projectionType: ProjectionType.KEYS_ONLY,
      ...indexCapacity(props.capacity?.pendingIndex),
    });
    // Sparse: only shard records carry `registryPk` (lib/memtable/registry.ts), so export
    // and verify list every shard at O(shards), never scanning batches or idempotency records.
    // Adding it to a deployed table is one in-place index creation (the table is not replaced).
    table.addGlobalSecondaryIndex({
      indexName: TABLE_LAYOUT.registryIndex,
      partitionKey: { name: TABLE_LAYOUT.registryPartitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE_LAYOUT.registrySortKey, type: AttributeType.STRING },
      projectionType: ProjectionType.KEYS_ONLY,
      ...indexCapacity(props.capacity?.registryIndex),
    });
    autoScaleTable(table, TABLE_LAYOUT, props.capacity);
    return table;
  }

  #createBuckets(
    removalPolicy: RemovalPolicy,
    key: IKey | undefined,
  ): { bucket: Bucket; accessLogBucket: Bucket } {
    // The data bucket's server access logs. cdk-nag S1 holds this bucket
    // compliant as the destination; logging it to itself would loop. SSE-S3
    // even with the app's key: S3 delivers server access logs only to a
    // bucket encrypted with SSE-S3.
    const accessLogBucket = new Bucket(this, 'AccessLogs', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      encryption: BucketEncryption.S3_MANAGED,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ id: 'expire-access-logs', expiration: Duration.days(ACCESS_LOG_DAYS) }],
      removalPolicy,
    });

    const bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      // SSE-S3, not SSE-KMS: the cost model counts one PUT per active shard per
      // tick; KMS would add a billed request per PUT/GET and a key policy to
      // keep in step, for no access control that the prefix-scoped IAM grants
      // do not already give. With the app's key (an organisation's rule), a
      // bucket key lets S3 reuse a bucket-level data key instead of calling
      // KMS for every PUT and GET.
      ...(key
        ? { encryption: BucketEncryption.KMS, encryptionKey: key, bucketKeyEnabled: true }
        : { encryption: BucketEncryption.S3_MANAGED }),
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      // WAL objects are written create-if-absent and never overwritten, so
      // versioning costs nothing for live objects; it only keeps the versions
      // retention deletes, for NONCURRENT_VERSION_DAYS (see above).
      versioned: true,
      lifecycleRules: [
        {
          // Never expires or transitions a current object: every live WAL object
          // and export may still be needed by recovery. (Spilled payloads are
          // not history; the next rule expires them.)
          id: 'housekeeping',
          abortIncompleteMultipartUploadAfter: Duration.days(ABORT_MULTIPART_DAYS),
          noncurrentVersionExpiration: Duration.days(NONCURRENT_VERSION_DAYS),
          expiredObjectDeleteMarker: true,
        },
        {
          // Spilled batch payloads (lib/memtable/spill.ts): referenced only while
          // their batch is pending, so they expire (S3), orphans of crashed puts
          // included. Their noncurrent versions go after SPILL_NONCURRENT_DAYS,
          // not housekeeping's 30: where two rules overlap, S3 applies the
          // shorter expiration. Listed second: bench/cost reads the first rule's
          // noncurrent days as the bucket's.
          id: 'expire-spilled-payloads',
          prefix: SPILL_PREFIX,
          expiration: Duration.days(SPILL_LIFECYCLE_DAYS),
          noncurrentVersionExpiration: Duration.days(SPILL_NONCURRENT_DAYS),
        },
      ],
      serverAccessLogsBucket: accessLogBucket,
      serverAccessLogsPrefix: 'data-bucket/',
      removalPolicy,
    });
    denyOverwrites(bucket);
    // The policies are the guardrails of the retained data (the overwrite
    // deny, TLS only, the log delivery): they stay with their buckets.
    for (const b of [bucket, accessLogBucket]) b.policy?.applyRemovalPolicy(removalPolicy);
    return { bucket, accessLogBucket };
  }
}
