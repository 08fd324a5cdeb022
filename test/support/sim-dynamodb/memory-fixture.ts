/**
 * The protocol-test `Fixture` of `test/support/harness.ts`, built on any
 * DynamoDB client (a `MemoryDynamoDB`, a `FaultyDynamoClient` over one, or a
 * real `DynamoDBClient`) instead of a dynalite server: a fresh table, the same
 * wiring and the same settings defaults, because it is the harness's own
 * builder (which reads nothing of its server but `client`).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { validateSettings } from '../../../lib/config.js';
import type { DynaliteServer } from '../../../lib/memtable/dynalite-server.js';
import type { ObjectStore } from '../../../lib/store/object-store.js';
import { type Fixture, fixture } from '../harness.js';
import type { DynamoSender } from './memory-dynamodb.js';

/** Builds a fixture whose table lives behind `client`. */
export function clientFixture(
  client: DynamoSender,
  settings: Parameters<typeof validateSettings>[0] = {},
  inner?: ObjectStore,
): Promise<Fixture> {
  const server = { client: client as unknown as DynamoDBClient } as DynaliteServer;
  return fixture(server, settings, inner);
}
