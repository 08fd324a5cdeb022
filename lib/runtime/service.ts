/**
 * The service's dependencies, assembled from the environment once per
 * process (module scope in each Lambda entry point). Configuration is
 * validated here, at start: a bad setting fails the cold start, naming it.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { configFromEnv, resourcesFromEnv, type ShardwalConfig } from '../config.js';
import type { FlushDeps } from '../flush/flush-shard.js';
import { itemLifetimes } from '../liveness.js';
import { payloadSpill } from '../memtable/spill.js';
import type { Table } from '../memtable/table.js';
import type { PutDeps } from '../put/put-rows.js';
import { recoveryDepsFrom } from '../recovery/deps.js';
import { type RebuildTakeover, takeOverRebuild } from '../recovery/takeover.js';
import type { ObjectStore } from '../store/object-store.js';
import type { TickDeps } from '../ticker/tick.js';
import { dynamoClientFromEnv, objectStoreFromEnv, sqsClientFromEnv } from './clients.js';
import { localFlushRequester, sqsFanOut, sqsFlushRequester } from './flush-requests.js';

/** Everything a handler may need. The object store is built on first use only. */
export interface Service {
  config: ShardwalConfig;
  table: Table;
  store: () => ObjectStore;
  put: PutDeps;
  flush: (owner?: string) => FlushDeps;
  tick: (owner?: string) => TickDeps;
  /** What a tick or a flush worker calls on a lapsed rebuild fence (`lib/recovery/takeover.ts`). */
  takeover: (owner?: string) => RebuildTakeover;
}

/**
 * `table` with the item lifetimes and the payload spill of `config`: how every
 * process (the functions, the local stack, the CLI) configures its table.
 */
export function configuredTable(
  table: Table,
  config: ShardwalConfig,
  store: () => ObjectStore,
): Table {
  return { ...table, lifetimes: itemLifetimes(config), spill: payloadSpill(config, store) };
}

/** Builds the service from `env`. */
export function serviceFromEnv(env: NodeJS.ProcessEnv = process.env): Service {
  const config = configFromEnv(env);
  const resources = resourcesFromEnv(env);
  let store: ObjectStore | undefined;
  const getStore = () => {
    store ??= objectStoreFromEnv(resources.bucketName, env);
    return store;
  };
  const table = configuredTable(
    { client: dynamoClientFromEnv(env), tableName: resources.tableName },
    config,
    getStore,
  );
  const sqs = resources.flushQueueUrl ? sqsClientFromEnv(env) : undefined;
  const now = () => Date.now();
  const flush = (owner: string = randomUUID()): FlushDeps => ({
    table,
    store: getStore(),
    owner,
    maxWalObjectBytes: config.maxWalObjectBytes,
    gapSealMs: config.gapSealMs,
    leaseMs: config.leaseMs,
    now,
  });
  const takeover = (owner: string = randomUUID()): RebuildTakeover => {
    const deps = recoveryDepsFrom(config, {
      table,
      store: getStore(),
      now,
      owner: `takeover-${owner}`,
    });
    return (shard, fence) => takeOverRebuild(deps, shard, fence);
  };
  return {
    config,
    table,
    store: getStore,
    put: {
      table,
      config,
      requestFlush:
        sqs && resources.flushQueueUrl
          ? sqsFlushRequester(sqs, resources.flushQueueUrl)
          : localFlushRequester,
      now,
      sleep: (ms) => sleep(ms),
    },
    flush,
    tick: (owner) => ({
      flush: flush(owner),
      intervalMs: config.flushIntervalMs,
      concurrency: config.flushConcurrency,
      maxShardsPerTick: config.maxShardsPerTick,
      fanOut: sqs && resources.flushQueueUrl ? sqsFanOut(sqs, resources.flushQueueUrl) : undefined,
      takeOver: takeover(owner),
    }),
    takeover,
  };
}
