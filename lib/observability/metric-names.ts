/**
 * Metric names and namespace, shared by the code that emits them and the CDK
 * stack's alarms and dashboard.
 */

/** CloudWatch namespace of every shardwal metric. */
export const METRICS_NAMESPACE = 'shardwal';

/** Metric names. Units: counts unless the name says Ms or Bytes. */
export const Metric = {
  putBatches: 'PutBatches',
  /** Iceberg tables (`lib/table`): rows committed, typed values refused (not exact in their type), WAL objects not yet committed. */
  tableRowsCommitted: 'TableRowsCommitted',
  tableValuesRefused: 'TableValuesRefused',
  tableLagObjects: 'TableLagObjects',
  /** Age of the oldest WAL object a table has not committed, the largest over the tables of a run (0: all caught up); one value per committer run. */
  tableLagMs: 'TableLagMs',
  /** Catalog (Glue) pointer moves that failed or gave up; the Iceberg commit stands (`lib/table/catalog.ts` G3). */
  tableCatalogErrors: 'TableCatalogErrors',
  putRows: 'PutRows',
  putBytes: 'PutBytes',
  putRejected: 'PutRejected',
  /** Age (since sent) of an SQS put held back for a retry (`lib/sqs/hold-back.ts`); one value per hold. */
  ingestHeldBackAgeMs: 'IngestHeldBackAgeMs',
  /** SQS puts the handler sent to a dead-letter queue itself (permanent refusals). */
  ingestDeadLettered: 'IngestDeadLettered',
  statusRequests: 'StatusRequests',
  flushLatencyMs: 'FlushLatencyMs',
  walObjectsWritten: 'WalObjectsWritten',
  walObjectsAdopted: 'WalObjectsAdopted',
  walBytes: 'WalBytes',
  walRows: 'WalRows',
  gapsSealed: 'GapsSealed',
  flushFenced: 'FlushFenced',
  flushErrors: 'FlushErrors',
  shardsPoisoned: 'ShardsPoisoned',
  poisonedShards: 'PoisonedShards',
  activeShards: 'ActiveShards',
  flushLagMs: 'FlushLagMs',
  /** Age of the oldest pending batch over all shards, emitted on every tick (a stalled shard is never silent). */
  oldestPendingAgeMs: 'OldestPendingAgeMs',
  tickDurationMs: 'TickDurationMs',
  ticksPerInvocation: 'TicksPerInvocation',
  shardsFannedOut: 'ShardsFannedOut',
  verifyFindings: 'VerifyFindings',
  exportRows: 'ExportRows',
  exportShardsScanned: 'ExportShardsScanned',
  verifyShardsScanned: 'VerifyShardsScanned',
  verifyHeals: 'VerifyHeals',
  exportBytes: 'ExportBytes',
  exportDurationMs: 'ExportDurationMs',
  exportFallbacks: 'ExportFallbacks',
  /** Exports that wrote no manifest, or deleted theirs again, because retention may have swept their objects (lib/export/deadline.ts). */
  exportsAbandoned: 'ExportsAbandoned',
  walObjectsRetired: 'WalObjectsRetired',
  rebuildRows: 'RebuildRows',
  rebuildDurationMs: 'RebuildDurationMs',
  rebuildsStopped: 'RebuildsStopped',
  rowsRejected: 'RowsRejected',
} as const;
export type MetricName = (typeof Metric)[keyof typeof Metric];
