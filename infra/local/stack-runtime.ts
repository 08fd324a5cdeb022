/**
 * The service half of the local stack, loaded only after `local-stack.ts`
 * has set the handlers' environment (this module and the handlers read it at
 * load time): the handlers from `functions/`, the flush ticker as a timer
 * loop, the SQS poller, the HTTP gateway, and the export and verify jobs on
 * their schedules (`local-jobs.ts`). Before any of them starts, the gaps the
 * previous run left are sealed (`lib/local/dead-gaps.ts`).
 *
 * Stop order, so no acked row is lost:
 * 1. the gateway stops accepting and answers the requests in flight (the
 *    ticker still runs, so durable puts in flight can complete);
 * 2. the SQS poller finishes its batch; what is left on the queues stays
 *    there, on disk, for the next start (the report counts it); meanwhile
 *    the job schedules stop and a running job is told to wrap up and
 *    awaited;
 * 3. the ticker runs its final tick and the queued flush requests, then ticks
 *    again while that still makes progress (`flushUntilIdle`).
 */

import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { LOCAL_TICKER_OWNER_PREFIX, sealDeadGaps } from '../../lib/local/dead-gaps.js';
import { flushUntilIdle } from '../../lib/local/final-flush.js';
import { lambdaContext } from '../../lib/local/lambda-context.js';
import { localPutAdmission, PutAdmission } from '../../lib/local/put-admission.js';
import type { QueueSource } from '../../lib/local/sqs-event.js';
import { SqsPoller } from '../../lib/local/sqs-poller.js';
import { sweepExpiredItems, sweepExpiredSpills } from '../../lib/local/ttl-sweep.js';
import { logger, metrics, withLogScope } from '../../lib/observability/telemetry.js';
import { ENDPOINT_ENV } from '../../lib/runtime/clients.js';
import { setLocalFlushRequester } from '../../lib/runtime/flush-requests.js';
import { serviceFromEnv } from '../../lib/runtime/service.js';
import { tablesConfigFromEnv } from '../../lib/table/table-config.js';
import { claimLeadMs } from '../../lib/ticker/claim-lead.js';
import { mapWithConcurrency } from '../../lib/ticker/concurrency.js';
import { flushAndReport, runTick } from '../../lib/ticker/tick.js';
import { fixedFlushConcurrency } from '../../lib/ticker/tick-plan.js';
import { FlushTicker } from '../../lib/ticker/ticker.js';
import { type HttpHandler, startHttpGateway } from './http-gateway.js';
import { type JobHandler, type LocalJobs, startLocalJobs } from './local-jobs.js';

/** How often the local stack expires table snapshots and removes orphans. */
const TABLE_MAINTAIN_EVERY_MS = 3_600_000;

type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

/** What the runtime needs from the emulators. */
export interface RuntimeInput {
  httpPort: number;
  flushIntervalMs: number;
  /** Period of the export job; undefined: off. */
  exportEveryMs: number | undefined;
  /** Period of the scheduled verify; undefined: off. */
  verifyEveryMs: number | undefined;
  /** Period of the TTL sweep (dynalite has no TTL); undefined: off. */
  sweepEveryMs?: number | undefined;
  sqs: SQSClient;
  queueUrl: string;
  queue: QueueSource;
  /**
   * Distinguishes this start from earlier ones in the same process: each
   * start imports fresh handler modules (a new cold start), so their
   * module-scope services see this start's endpoints.
   */
  instance: number;
}

/** What stopping found. */
export interface StopReport {
  /** Messages left on the ingest queue (visible, delayed or held back), kept for the next start. */
  sqsMessagesLeft: number;
  /** Shards still pending after the final flush (kept in the memtable, flushed on the next start). */
  pendingShards: string[];
}

/** A running runtime. */
export interface StackRuntime {
  httpUrl: string;
  jobs: LocalJobs;
  stop: () => Promise<StopReport>;
}

async function loadHandler<H>(file: string, instance: number): Promise<H> {
  // `.ts` from the sources (tsx), `.js` compiled (`dist/`).
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  const url = new URL(`../../functions/${file}${ext}`, import.meta.url);
  url.searchParams.set('local-stack', String(instance));
  const module = (await import(url.href)) as {
    handler: (event: unknown, context: Context) => Promise<unknown>;
  };
  // Each invocation logs with its own function's context, as a Lambda process would.
  const scoped = (event: unknown, context: Context) =>
    withLogScope(context, () => module.handler(event, context));
  return scoped as H;
}

/**
 * A job's handler, loaded at its first run rather than at start: a job runs
 * a period after start at the earliest, and a restart that loads less is up
 * sooner (restart time bounds the crash test's stall).
 */
function lazyHandler<H extends (...args: never[]) => Promise<unknown>>(
  file: string,
  instance: number,
): H {
  let loaded: Promise<H> | undefined;
  const call = async (...args: Parameters<H>) => {
    loaded ??= loadHandler<H>(file, instance);
    return (await loaded)(...args);
  };
  return call as H;
}

/** Runs ticker work logging as the flush ticker function, not as whichever put ran last. */
function asTicker<T>(fn: () => Promise<T>): Promise<T> {
  return withLogScope(lambdaContext('shardwal-flush-tick'), fn);
}

function publishMetrics(): void {
  if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
}

/** Starts the handlers, ticker, poller and gateway. */
export async function startStackRuntime(input: RuntimeInput): Promise<StackRuntime> {
  const tables = tablesConfigFromEnv();
  const [putHttp, statusHttp, putSqs] = await Promise.all([
    loadHandler<HttpHandler>('put-http', input.instance),
    loadHandler<HttpHandler>('status-http', input.instance),
    loadHandler<SqsHandler>('put-sqs', input.instance),
  ]);
  const exportJob =
    input.exportEveryMs === undefined
      ? undefined
      : lazyHandler<JobHandler>('export', input.instance);
  const recoverJob =
    input.verifyEveryMs === undefined
      ? undefined
      : lazyHandler<JobHandler>('recover', input.instance);
  const tableJob = tables ? lazyHandler<JobHandler>('table-commit', input.instance) : undefined;
  const service = serviceFromEnv();
  // Before any put is served or any tick runs: the previous run's gaps can never be written.
  for (const { shard, seqs } of await sealDeadGaps(service.table, Date.now())) {
    logger.warn('sealed void the seqs the previous run allocated and never wrote', {
      shard,
      seqs,
    });
  }
  const tickDeps = service.tick(`${LOCAL_TICKER_OWNER_PREFIX}${process.pid}-${input.instance}`);

  const intervalMs = input.flushIntervalMs;
  const ticker = new FlushTicker({
    intervalMs,
    leadMs: () => claimLeadMs(intervalMs),
    tick: (slotMs) =>
      asTicker(async () => {
        try {
          await runTick({
            ...tickDeps,
            slot: { atMs: slotMs, intervalMs },
          });
        } catch (error) {
          // The ticker must outlive a failed tick (an emulator hiccup); the next tick retries.
          logger.error('tick failed; the next tick retries', { error: error as Error });
        } finally {
          publishMetrics();
        }
      }),
    flushShards: (shards) =>
      asTicker(async () => {
        await mapWithConcurrency(shards, fixedFlushConcurrency(service.config), (shard) =>
          flushAndReport(tickDeps.flush, shard),
        );
        publishMetrics();
      }),
  });
  // The put path awaits its requester; the ticker serves the request before its next tick.
  setLocalFlushRequester(async (shard) => {
    ticker.requestFlush(shard).catch((error: unknown) => {
      logger.error('requested flush failed; the next tick retries', {
        shard,
        error: error as Error,
      });
    });
  });
  ticker.start();

  const poller = new SqsPoller({
    sqs: input.sqs,
    queueUrl: input.queueUrl,
    source: input.queue,
    handler: (event) => putSqs(event, lambdaContext('shardwal-put-sqs', { timeoutMs: 60_000 })),
    onError: (error, what) => logger.error(`sqs ${what} failed`, { error: error as Error }),
  });
  poller.start();

  const jobs = startLocalJobs({
    export: exportJob && { handler: exportJob, everyMs: input.exportEveryMs! },
    verify: recoverJob && { handler: recoverJob, everyMs: input.verifyEveryMs! },
    tables: tableJob && {
      handler: tableJob,
      everyMs: tables!.commitMs,
      maintainEveryMs: TABLE_MAINTAIN_EVERY_MS,
    },
    sweep:
      input.sweepEveryMs === undefined
        ? undefined
        : {
            run: async () => {
              await sweepExpiredItems(service.table, Date.now());
              const objectsDir = process.env[ENDPOINT_ENV.storeDir];
              if (objectsDir) await sweepExpiredSpills(objectsDir, Date.now());
            },
            everyMs: input.sweepEveryMs,
          },
  });

  const stopBackground = async (): Promise<StopReport> => {
    // A running job is awaited before the final flush and before any client closes.
    const [{ left }] = await Promise.all([poller.stop(), jobs.stop()]);
    await ticker.stop();
    setLocalFlushRequester(undefined);
    const pendingShards = await flushUntilIdle(tickDeps).catch((error: unknown) => {
      logger.error('final flush failed', { error: error as Error });
      return ['(unknown: final flush failed)'];
    });
    service.table.client.destroy();
    return { sqsMessagesLeft: left, pendingShards };
  };

  let gateway: Awaited<ReturnType<typeof startHttpGateway>>;
  try {
    gateway = await startHttpGateway({
      port: input.httpPort,
      maxBodyBytes: service.config.maxBodyBytes,
      handlers: { put: putHttp, status: statusHttp },
      admission: new PutAdmission(localPutAdmission(service.config)),
    });
  } catch (error) {
    await stopBackground();
    throw error;
  }

  return {
    httpUrl: gateway.url,
    jobs,
    stop: async () => {
      await gateway.close();
      return stopBackground();
    },
  };
}
