/**
 * dynalite in a child process (`startDynalite` from the memtable), so the
 * emulator's CPU is not counted as the handlers' when the benchmark measures
 * their CPU time; in AWS that work is DynamoDB's. Also spreads the run over
 * the machine's two cores.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { InternalError } from '../../lib/errors.js';
import { startDynalite } from '../../lib/memtable/dynalite-server.js';

/** A running emulator in a child process. */
export interface ChildDynalite {
  endpoint: string;
  /** A client for it (the caller wraps it in the meter). */
  client: DynamoDBClient;
  stop: () => Promise<void>;
}

const CHILD_FLAG = '--dynalite-child';

/** Starts dynalite (in memory) in a child process. */
export async function startChildDynalite(): Promise<ChildDynalite> {
  const child = fork(fileURLToPath(import.meta.url), [CHILD_FLAG], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const endpoint = await new Promise<string>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { endpoint: string }).endpoint));
    child.once('exit', (code) =>
      reject(new InternalError(`dynalite child exited with ${code} before listening`)),
    );
  });
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  return {
    endpoint,
    client,
    stop: async () => {
      client.destroy();
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill();
      await exited;
    },
  };
}

if (process.argv.includes(CHILD_FLAG)) {
  const server = await startDynalite();
  process.send?.({ endpoint: server.endpoint });
  process.on('SIGTERM', () => {
    void server.close().then(() => process.exit(0));
  });
}
