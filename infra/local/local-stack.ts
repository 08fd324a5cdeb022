/**
 * The local stack: the whole service on one machine with no AWS account —
 * the same handlers, DynamoDB as dynalite persisted under the data folder,
 * the object store on the filesystem under it, SQS as fauxqs in process with
 * its queues persisted under it too, the
 * ticker as a timer loop, the export and verify jobs on their own timers, and
 * the HTTP API on a local port. `stop()` waits for a running job, performs a
 * final flush and loses no acked row; a restart on the same data folder finds
 * everything.
 *
 * Start order: refuse a data folder in use → dynalite (+ table) and fauxqs
 * (+ queues), side by side → the handlers' environment → the runtime (handlers, ticker,
 * poller, gateway; `stack-runtime.ts`) → `stack.json`. A failure part-way
 * closes what was started, in reverse.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { dataDirLayout, LOCAL_RESOURCES } from '../../lib/local/data-dir.js';
import { StackRunningError } from '../../lib/local/errors.js';
import { assertLevelDbUnlocked } from '../../lib/local/leveldb-lock.js';
import type { DerivedPort } from '../../lib/local/listen-error.js';
import type { LocalScheduleStatus } from '../../lib/local/local-schedule.js';
import { LOCAL_SETTINGS, type LocalSettings } from '../../lib/local/local-settings.js';
import {
  findRunningStack,
  removeStackFile,
  STACK_FILE_VERSION,
  type StackInfo,
  writeStackFile,
} from '../../lib/local/stack-file.js';
import { startLocalDynamo, startLocalQueues } from './emulators.js';
import { applyEnvironment, localEnvironment } from './environment.js';
import type { StopReport } from './stack-runtime.js';

/** A running local stack. */
export interface LocalStack {
  /** Endpoints and paths, as written to stack.json. */
  info: StackInfo;
  /** The counters of the export and verify schedules that are on. */
  jobs: () => LocalScheduleStatus[];
  /** Stops it (final flush included); safe to call more than once. */
  stop: () => Promise<StopReport>;
}

let starts = 0;

/** How `port` derives from `PORT` (its default: `PORT` + `offset`), for the message of a taken port. */
function derivedPort(
  settings: LocalSettings,
  port: number,
  offset: number,
  role: string,
): DerivedPort | undefined {
  if (settings.port === 0 || port !== settings.port + offset) return undefined;
  return { from: LOCAL_SETTINGS.port.env, base: settings.port, offset, role };
}

/** Starts the local stack with `settings` (see `localSettingsFromEnv`). */
export async function startLocalStack(settings: LocalSettings): Promise<LocalStack> {
  const layout = dataDirLayout(settings.dataDir);
  await mkdir(layout.objectsDir, { recursive: true });
  const running = await findRunningStack(layout.stackFile);
  if (running) throw new StackRunningError(layout.root, running.pid, running.httpUrl);
  if (existsSync(path.join(layout.dynamodbDir, 'CURRENT'))) {
    await assertLevelDbUnlocked(layout.dynamodbDir);
  }

  const undo: Array<() => Promise<unknown>> = [];
  try {
    // Side by side: dynalite boots on its own thread while this one loads the SQS emulator.
    const [dynamoStart, queuesStart] = await Promise.allSettled([
      startLocalDynamo(
        layout.dynamodbDir,
        settings.dynamodbPort,
        derivedPort(settings, settings.dynamodbPort, 1, 'DynamoDB'),
      ),
      startLocalQueues(
        layout.sqsDir,
        settings.sqsPort,
        derivedPort(settings, settings.sqsPort, 2, 'SQS'),
      ),
    ]);
    if (dynamoStart.status === 'fulfilled') undo.push(dynamoStart.value.close);
    if (queuesStart.status === 'fulfilled') undo.push(queuesStart.value.close);
    if (dynamoStart.status === 'rejected') throw dynamoStart.reason;
    if (queuesStart.status === 'rejected') throw queuesStart.reason;
    const dynamo = dynamoStart.value;
    const queues = queuesStart.value;

    // Restored on stop, so an embedding process (tests, the bench) gets its environment back.
    const restoreEnvironment = applyEnvironment(
      process.env,
      localEnvironment(process.env, settings, layout, dynamo.endpoint, queues),
    );
    undo.push(async () => restoreEnvironment());
    const { startStackRuntime } = await import('./stack-runtime.js');
    const runtime = await startStackRuntime({
      httpPort: settings.port,
      flushIntervalMs: settings.flushIntervalMs,
      exportEveryMs: settings.exportEveryMs,
      verifyEveryMs: settings.verifyEveryMs,
      sweepEveryMs: settings.sweepEveryMs,
      sqs: queues.client,
      queueUrl: queues.queueUrl,
      queue: { queueArn: queues.queueArn, region: LOCAL_RESOURCES.region },
      instance: ++starts,
    });
    undo.push(runtime.stop);

    const info: StackInfo = {
      version: STACK_FILE_VERSION,
      pid: process.pid,
      startedAt: new Date().toISOString(),
      dataDir: layout.root,
      httpUrl: runtime.httpUrl,
      dynamodbEndpoint: dynamo.endpoint,
      tableName: LOCAL_RESOURCES.tableName,
      sqsEndpoint: queues.endpoint,
      queueUrl: queues.queueUrl,
      deadLetterQueueUrl: queues.deadLetterQueueUrl,
      objectsDir: layout.objectsDir,
      flushIntervalMs: settings.flushIntervalMs,
      exportEveryMs: settings.exportEveryMs ?? null,
      verifyEveryMs: settings.verifyEveryMs ?? null,
    };
    await writeStackFile(layout.stackFile, info);

    let stopped: Promise<StopReport> | undefined;
    const stop = async (): Promise<StopReport> => {
      const report = await runtime.stop();
      await queues.close();
      await dynamo.close();
      await removeStackFile(layout.stackFile, process.pid);
      restoreEnvironment();
      return report;
    };
    return {
      info,
      jobs: runtime.jobs.status,
      stop: () => {
        stopped ??= stop();
        return stopped;
      },
    };
  } catch (error) {
    for (const step of undo.reverse()) await step().catch(() => undefined);
    throw error;
  }
}
