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

/** The data folder holds no shardwal data. */
export class NoLocalDataError extends ShardwalError {
  constructor(dataDir: string) {
    super(
      ErrorKind.notFound,
      `no shardwal data in ${dataDir}; run \`shardwal start\` first, or point SHARDWAL_DATA_DIR (--data-dir) at an existing data folder`,
    );
    this.name = 'NoLocalDataError';
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
