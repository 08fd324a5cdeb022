/**
 * An in-process DynamoDB emulator (dynalite) for the local stack and tests,
 * persisted under `path` when given (in memory otherwise).
 *
 * It runs in a worker thread of its own (`dynalite-thread.mjs`), as DynamoDB
 * runs apart from its callers: each request costs the emulator about as much
 * CPU as it costs the SDK to send it, and on the callers' thread that work
 * queued behind the handlers' (a tick's commits behind the puts around it).
 */
import { Worker } from 'node:worker_threads';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { emulatorClientOptions } from '../emulator-options.js';
import { InternalError } from '../errors.js';

/** A running emulator. */
export interface DynaliteServer {
  endpoint: string;
  client: DynamoDBClient;
  close: () => Promise<void>;
}

/** Starts dynalite on `port` (0 = any free port) of 127.0.0.1. */
export async function startDynalite(
  options: { path?: string; port?: number } = {},
): Promise<DynaliteServer> {
  const thread = new Worker(new URL('./dynalite-thread.mjs', import.meta.url), {
    workerData: { path: options.path, port: options.port ?? 0 },
  });
  // The SDK loads on this thread while dynalite starts on its own (a faster start).
  const sdk = import('@aws-sdk/client-dynamodb');
  sdk.catch(() => undefined); // awaited below; a failure surfaces there
  let failure: Error | undefined;
  thread.on('error', (error) => {
    failure ??= error;
  });
  const exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    thread.once('message', (message: { port?: number; error?: string }) => {
      if (message.port !== undefined) resolve(message.port);
      else {
        reject(new InternalError(`dynalite could not listen: ${message.error}`));
        void thread.terminate();
      }
    });
    thread.once('exit', (code) => {
      reject(
        failure ?? new InternalError(`dynalite's thread exited with ${code} before listening`),
      );
    });
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const { DynamoDBClient } = await sdk;
  const client = new DynamoDBClient(emulatorClientOptions(endpoint));
  return {
    endpoint,
    client,
    close: async () => {
      client.destroy();
      thread.postMessage('close'); // a no-op on a thread that already ended
      await exited;
      if (failure) throw failure;
    },
  };
}
