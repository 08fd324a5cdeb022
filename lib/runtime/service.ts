/**
 * The service's dependencies, assembled from the environment once per
 * process (module scope in each Lambda entry point). Configuration is
 * validated here, at start: a bad setting fails the cold start, naming it.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { configFromEnv, resourcesFromEnv, type ShardwalConfig } from '../config.js';
import { type FlushDeps, flushSettings } from '../flush/flush-shard.js';
import { itemLifetimes } from '../liveness.js';
import { payloadSpill } from '../memtable/spill.js';
import type { Table } from '../memtable/table.js';
import type { PutDeps } from '../put/put-rows.js';
import { recoveryDepsFrom } from '../recovery/deps.js';
import { type RebuildTakeover, takeOverRebuild } from '../recovery/takeover.js';
import type { ObjectStore } from '../store/object-store.js';
import type { TickDeps } from '../ticker/tick.js';
import { dynamoClientFromEnv, lazyObjectStoreFromEnv } from './clients.js';
import { type FlushQueue, localFlushRequester } from './flush-requests.js';

/**
 * The clients besides DynamoDB (which every process uses) that a process
 * gives the service. A Lambda function passes those it calls on every
 * invocation, built at module scope, and leaves out the rest: each one's SDK
 * costs its cold start an import (docs/deploy.md, "Function sizes").
 */
export interface ServiceClients {
  /**
   * The object store (`objectStoreFromEnv`). Default: the same store built
   * on first use (`lazyObjectStoreFromEnv`), for a process that seldom
   * touches objects: the S3 client is imported then.
   */
  store?: ObjectStore;
  /**
   * The SQS flush queue (`flushQueueFromEnv`): size-trigger requests and the
   * tick's fan-out. Without it a size trigger goes to the local stack's
   * in-process requester and a tick flushes every shard itself.
   */
  flushQueue?: FlushQueue;
}

/** Everything a handler may need. */
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

/** Builds the service from `env`, with `clients` besides its DynamoDB client. */
export function serviceFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  clients: ServiceClients = {},
): Service {
  const config = configFromEnv(env);
  const resources = resourcesFromEnv(env);
  const store = clients.store ?? lazyObjectStoreFromEnv(resources.bucketName, env);
  const getStore = () => store;
  const table = configuredTable(
    { client: dynamoClientFromEnv(env), tableName: resources.tableName },
    config,
    getStore,
  );
  const now = () => Date.now();
  const flush = (owner: string = randomUUID()): FlushDeps => ({
    table,
    store: getStore(),
    owner,
    ...flushSettings(config),
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
      requestFlush: clients.flushQueue?.requestFlush ?? localFlushRequester,
      now,
      sleep: (ms) => sleep(ms),
    },
    flush,
    tick: (owner) => ({
      flush: flush(owner),
      intervalMs: config.flushIntervalMs,
      concurrency: config.flushConcurrency,
      maxShardsPerTick: config.maxShardsPerTick,
      flushWorkers: config.flushWorkers,
      fanOut: clients.flushQueue?.fanOut,
      takeOver: takeover(owner),
    }),
    takeover,
  };
}
