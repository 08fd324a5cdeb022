/**
 * Least privilege for readers of the data bucket (`shardwal tail`, the
 * client's `tailShard`, `shardwal dump --bucket`): `s3:GetObject` on the
 * stored formats a reader reads — WAL objects, export manifests, keyless
 * segments, keyed snapshot parts and the legacy AOF exports `dump --bucket`
 * reads (`KEY_PATTERNS`) — and `s3:ListBucket`
 * on the bucket, nothing else: no write, no delete, no spilled batch
 * payloads (`spill/`, not a documented format), no DynamoDB table; with the
 * app's key (`key` prop) the bucket is SSE-KMS, and readers get `kms:Decrypt` on that key.
 * With Iceberg tables on (the `tables` setting) it also gets `tables/*`:
 * what Athena, DuckDB or Spark read of a table under the reader's identity.
 * With the Glue registration (`tableCatalog: 'glue'`) it also gets what
 * Athena reads of the catalog: `glue:GetDatabase`, `glue:GetTable` and
 * `glue:GetTables` on the catalog, the tables' database and the tables.
 *
 * `s3:ListBucket` is unconditional on purpose: the reader lists manifests and
 * WAL keys, and S3 answers a GET of a missing key with 404 only to a caller
 * that may list the bucket (403 otherwise). A follower polls the next WAL
 * position by key and needs that 404 to mean "not yet".
 *
 * Two ways to use it: attach the managed policy (output `ReaderPolicyArn`)
 * to a role or user, or call `grantRead(grantee)` for a principal in the app
 * (a function that tails a shard), which adds the same statements to it.
 */
import { Grant, type IGrantable, ManagedPolicy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Construct, type IConstruct } from 'constructs';
import { KEY_PATTERNS } from './key-patterns.js';
import { KEY_READ_ACTIONS } from './key-use.js';
import { acknowledgeWildcardResources } from './nag.js';

/** The object kinds a reader may get. */
export const READER_KEY_PATTERNS: readonly string[] = [
  KEY_PATTERNS.wal,
  // Legacy AOF exports: `shardwal dump --bucket` still reads them.
  KEY_PATTERNS.aof,
  KEY_PATTERNS.manifest,
  KEY_PATTERNS.segment,
  KEY_PATTERNS.snapshot,
];

/** What a reader may get besides, with tables on: every table's metadata and data files. */
const TABLE_READER_KEY_PATTERNS: readonly string[] = [KEY_PATTERNS.table];

/** Props of `ReaderPolicy`. */
export interface ReaderPolicyProps {
  /** The data bucket. */
  bucket: IBucket;
  /** Whether Iceberg tables are on: the readers may then get `tables/*`. */
  tables?: boolean;
  /** The Glue catalog, database and table ARNs of the tables (`GlueTables.arns`), when registered. */
  glueArns?: readonly string[];
  /** The app's key the bucket is encrypted with: reading needs `kms:Decrypt`. */
  key?: IKey | undefined;
}

/** What a reader may do in Glue (Athena's reads of a table's definition). */
const GLUE_READER_ACTIONS = ['glue:GetDatabase', 'glue:GetTable', 'glue:GetTables'] as const;

/** The readers' policy. */
export class ReaderPolicy extends Construct {
  readonly policy: ManagedPolicy;
  readonly #bucket: IBucket;
  readonly #patterns: readonly string[];
  readonly #glueArns: readonly string[];
  readonly #key: IKey | undefined;

  constructor(scope: Construct, id: string, props: ReaderPolicyProps) {
    super(scope, id);
    this.#bucket = props.bucket;
    this.#key = props.key;
    this.#patterns = [...READER_KEY_PATTERNS, ...(props.tables ? TABLE_READER_KEY_PATTERNS : [])];
    this.#glueArns = props.glueArns ?? [];
    this.policy = new ManagedPolicy(this, 'Resource', {
      description: `shardwal readers: get WAL objects, manifests, segments, snapshot parts and legacy exports${props.tables ? ', Iceberg tables' : ''}; list the bucket`,
      statements: this.#statements(),
    });
    acknowledgeWildcardResources(
      this.policy,
      this.#patterns.map((pattern) => props.bucket.arnForObjects(pattern)),
      'Object ARNs carry * for the shard name and the zero-padded position or range, or for the table and file names under tables/: readers read shards and tables chosen at run time; the object kinds are fixed.',
    );
  }

  /**
   * Grants `grantee` the same reads as the managed policy; the object ARNs'
   * cdk-nag IAM5 findings on the grantee's policy are acknowledged on the
   * grantee, one object kind at a time.
   */
  grantRead(grantee: IGrantable): Grant {
    const [get, ...rest] = this.#statements();
    const construct = grantee as Partial<IConstruct>;
    if (construct.node) {
      acknowledgeWildcardResources(
        construct as IConstruct,
        get!.resources,
        'shardwal grantRead: object ARNs carry * for the shard name and the position or range; the object kinds are fixed.',
      );
    }
    const objects = Grant.addToPrincipal({
      grantee,
      actions: get!.actions,
      resourceArns: get!.resources,
    });
    let granted = objects;
    for (const statement of rest) {
      granted = granted.combine(
        Grant.addToPrincipal({
          grantee,
          actions: statement.actions,
          resourceArns: statement.resources,
        }),
      );
    }
    return granted;
  }

  #statements(): PolicyStatement[] {
    return [
      new PolicyStatement({
        actions: ['s3:GetObject'],
        resources: this.#patterns.map((pattern) => this.#bucket.arnForObjects(pattern)),
      }),
      new PolicyStatement({ actions: ['s3:ListBucket'], resources: [this.#bucket.bucketArn] }),
      ...(this.#glueArns.length > 0
        ? [
            new PolicyStatement({
              actions: [...GLUE_READER_ACTIONS],
              resources: [...this.#glueArns],
            }),
          ]
        : []),
      ...(this.#key
        ? [new PolicyStatement({ actions: [...KEY_READ_ACTIONS], resources: [this.#key.keyArn] })]
        : []),
    ];
  }
}
