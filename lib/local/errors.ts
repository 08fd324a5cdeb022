/**
 * Errors of the local stack and of the CLI commands that read its data
 * folder. Each names the folder (and the process holding it, when known).
 */
import { BackpressureError, ErrorKind, ShardwalError } from '../errors.js';

/** A stack already runs on this data folder. */
export class StackRunningError extends ShardwalError {
  readonly pid: number;
  constructor(dataDir: string, pid: number, httpUrl: string) {
    super(
      ErrorKind.unavailable,
      `a shardwal stack (pid ${pid}, ${httpUrl}) already runs on ${dataDir}; stop it first or use another SHARDWAL_DATA_DIR`,
    );
    this.name = 'StackRunningError';
    this.pid = pid;
  }
}

/** A leveldb of the data folder (DynamoDB's or the queues') is locked by another process. */
export class DataDirLockedError extends ShardwalError {
  constructor(dir: string) {
    super(
      ErrorKind.unavailable,
      `${dir} is locked by another process (a stack starting or stopping, or another shardwal command); retry in a moment`,
    );
    this.name = 'DataDirLockedError';
  }
}

/**
 * The data folder holds no DynamoDB state. With `objectsOnly` its object
 * store is there (a lost or deleted `dynamodb/`): the step is a rebuild from
 * the objects, not a fresh start.
 */
export class NoLocalDataError extends ShardwalError {
  /** Shards the object store holds (none: no data at all). */
  readonly objectShards: readonly string[];
  constructor(dataDir: string, objectShards: readonly string[] = []) {
    const listed =
      objectShards.length > 5
        ? `${objectShards.slice(0, 5).join(', ')} and ${objectShards.length - 5} more`
        : objectShards.join(', ');
    super(
      ErrorKind.notFound,
      objectShards.length > 0
        ? `no DynamoDB state in ${dataDir}, only its object store (shards ${listed}); run \`shardwal recover <shard>\` for each to rebuild it from its export and WAL`
        : `no shardwal data in ${dataDir}; run \`shardwal start\` first, or point SHARDWAL_DATA_DIR (--data-dir) at an existing data folder`,
    );
    this.name = 'NoLocalDataError';
    this.objectShards = objectShards;
  }
}

/**
 * A put the local gateway's door refused (`put-admission.ts`): a 429 with
 * Retry-After, like the buffer's own refusal; the put never reached the
 * handler, so nothing was stored.
 */
export class AdmissionRefusedError extends BackpressureError {
  constructor(shard: string, reason: string, retryAfterSeconds: number) {
    super(shard, 0, 0, 0, retryAfterSeconds);
    this.name = 'AdmissionRefusedError';
    this.message = `shard ${shard}: ${reason}; nothing was stored; retry after ${retryAfterSeconds}s`;
  }
}
