/**
 * Logical ids of the stateful resources of a stack deployed before the
 * service became a construct. CloudFormation identifies a resource by its
 * logical id: a new id creates a new table, bucket or queue and orphans the
 * retained old one with its data. The repo's stack passes these to its
 * service (`logicalIds` prop), so no refactoring of construct paths can move
 * them; `test/infra/logical-ids.test.ts` fails if one changes.
 */
import type { CfnElement } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import type { Queues } from './constructs/queues.js';
import type { Storage } from './constructs/storage.js';

/** The stateful resources whose logical ids can be pinned. */
export type PinnableResource =
  | 'table'
  | 'bucket'
  | 'accessLogBucket'
  | 'ingestQueue'
  | 'ingestDlq'
  | 'ingestFifoQueue'
  | 'ingestFifoDlq'
  | 'flushQueue'
  | 'flushDlq';

/** Logical ids to keep, by resource. */
export type PinnedLogicalIds = Readonly<Partial<Record<PinnableResource, string>>>;

/** The ids of this repository's deployed stack (`Shardwal`), as deployed. */
export const PINNED_LOGICAL_IDS = {
  table: 'StorageTableB43FDCE7',
  bucket: 'StorageBucket5CB7C8EA',
  accessLogBucket: 'StorageAccessLogs96FB524C',
  ingestQueue: 'QueuesIngest03326846',
  ingestDlq: 'QueuesIngestDlq9A58644E',
  // Added after the others, with the ids they were first deployed under.
  ingestFifoQueue: 'QueuesIngestFifoBB9FB0FC',
  ingestFifoDlq: 'QueuesIngestFifoDlq741C3AB7',
  flushQueue: 'QueuesFlushA9CE9627',
  flushDlq: 'QueuesFlushDlqD3001665',
} as const satisfies Record<PinnableResource, string>;

/**
 * Overrides the logical ids of the given resources. Called as soon as they
 * exist: grants and cdk-nag acknowledgements name resources by logical id,
 * so the ids must be final before anything refers to them.
 */
export function pinLogicalIds(storage: Storage, queues: Queues, ids: PinnedLogicalIds): void {
  // Resources brought by the app (props `table`, `bucket`) are not the service's to pin.
  const resources: Record<PinnableResource, IConstruct | undefined> = {
    table: storage.ownTable,
    bucket: storage.ownBucket,
    accessLogBucket: storage.accessLogBucket,
    ingestQueue: queues.ingest,
    ingestDlq: queues.ingestDlq,
    ingestFifoQueue: queues.ingestFifo,
    ingestFifoDlq: queues.ingestFifoDlq,
    flushQueue: queues.flush,
    flushDlq: queues.flushDlq,
  };
  for (const [name, id] of Object.entries(ids)) {
    const resource = resources[name as PinnableResource];
    if (id === undefined || resource === undefined) continue;
    (resource.node.defaultChild as CfnElement).overrideLogicalId(id);
  }
}
