/**
 * An in-process DynamoDB emulator (dynalite) for the local stack and tests,
 * persisted under `path` when given (in memory otherwise).
 */
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';

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
  const server = dynalite({
    path: options.path,
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  return {
    endpoint,
    client,
    close: async () => {
      client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
