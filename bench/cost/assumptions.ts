/**
 * The figures the cost model cannot measure on one machine, each stated with
 * why it is what it is. The benchmark prints them; every cost that depends
 * on one of them is marked as modelled.
 */
import { TARGET_UTILISATION_PERCENT } from '../../infra/capacity-settings.js';

/** Modelling assumptions. */
export interface Assumptions {
  /** Hours in the billing month AWS prices by. */
  monthHours: number;
  /**
   * Days DynamoDB takes to delete an item after its TTL passes ("typically
   * within a few days", DynamoDB developer guide, "Working with TTL"); the
   * item is billed as storage until then.
   */
  ttlDelayDays: number;
  /** Round trip of one DynamoDB request from Lambda in-region ("single-digit milliseconds"). */
  dynamoLatencyMs: number;
  /** Round trip of one S3 PUT of a WAL object or export (tens of ms). */
  s3PutLatencyMs: number;
  /** First-byte latency of one S3 GET or LIST. */
  s3GetLatencyMs: number;
  /**
   * Memory at which Lambda gives a function one full vCPU; below it CPU is
   * proportional to memory ("1,769 MB ... the equivalent of one vCPU").
   * Local CPU time per invocation is scaled by this ratio, taking a local
   * core as fast as a Graviton vCPU.
   */
  fullVcpuMemoryMb: number;
  /** Concurrent empty long polls Lambda's SQS event source keeps on an idle queue. */
  sqsIdlePollers: number;
  /** Wait of one long poll. */
  sqsLongPollSeconds: number;
  /**
   * Months of history storage priced per GB ingested. Exports hold the
   * shard's whole history for the operator's retention; the figure prices
   * the first month and prints what each further month adds.
   */
  historyMonths: number;
  /**
   * Share of an export interval of WAL a verify finds after the watermark,
   * on average (the two schedules are not aligned).
   */
  verifyLagShare: number;
  /** Utilisation provisioned capacity is held at by auto scaling (the modelled provisioned line). */
  provisionedTargetUtilisation: number;
  /** DynamoDB's throughput limit of one partition, which one shard's items share (write units/s). */
  partitionWriteUnitsPerSecond: number;
}

/** The assumptions of the printed figures. */
export const ASSUMPTIONS: Assumptions = {
  monthHours: 730,
  ttlDelayDays: 2,
  dynamoLatencyMs: 6,
  s3PutLatencyMs: 40,
  s3GetLatencyMs: 20,
  fullVcpuMemoryMb: 1_769,
  sqsIdlePollers: 5,
  sqsLongPollSeconds: 20,
  historyMonths: 1,
  verifyLagShare: 0.5,
  // The deployed auto scaling target, one source of truth.
  provisionedTargetUtilisation: TARGET_UTILISATION_PERCENT / 100,
  partitionWriteUnitsPerSecond: 1_000,
};
