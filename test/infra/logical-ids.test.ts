/**
 * The stateful resources of a deployed stack keep their logical ids: a new id
 * makes CloudFormation create a new table, bucket or queue and orphan the
 * retained one with its data. The ids below were recorded from the synth of
 * the stack before the service became a construct; they are literals on
 * purpose, so changing the pins in `infra/pinned-ids.ts` fails here too.
 */

import { App, Stack } from 'aws-cdk-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { logicalIdOf } from '../../infra/constructs/nag.js';
import type { PinnedLogicalIds } from '../../infra/pinned-ids.js';
import { ShardwalService } from '../../infra/shardwal-service.js';
import { cdkJsonContext, INLINE_CODE, type Synthesized, synth } from './support.js';

const DEPLOYED = {
  'AWS::DynamoDB::Table': ['StorageTableB43FDCE7'],
  'AWS::S3::Bucket': ['StorageAccessLogs96FB524C', 'StorageBucket5CB7C8EA'],
  'AWS::SQS::Queue': [
    'QueuesFlushA9CE9627',
    'QueuesFlushDlqD3001665',
    'QueuesIngest03326846',
    'QueuesIngestDlq9A58644E',
    'QueuesIngestFifoBB9FB0FC',
    'QueuesIngestFifoDlq741C3AB7',
  ],
} as const;

let s: Synthesized;
beforeAll(() => {
  s = synth({});
});

describe('ShardwalStack', () => {
  describe('logical ids', () => {
    it('keeps the table, both buckets and the six queues of a deployed stack', () => {
      const { storage, queues } = s.service;
      expect({
        table: logicalIdOf(storage.table),
        bucket: logicalIdOf(storage.bucket),
        accessLogBucket: logicalIdOf(storage.accessLogBucket!),
        ingest: logicalIdOf(queues.ingest!),
        ingestDlq: logicalIdOf(queues.ingestDlq!),
        ingestFifo: logicalIdOf(queues.ingestFifo!),
        ingestFifoDlq: logicalIdOf(queues.ingestFifoDlq!),
        flush: logicalIdOf(queues.flush),
        flushDlq: logicalIdOf(queues.flushDlq),
      }).toEqual({
        table: 'StorageTableB43FDCE7',
        bucket: 'StorageBucket5CB7C8EA',
        accessLogBucket: 'StorageAccessLogs96FB524C',
        ingest: 'QueuesIngest03326846',
        ingestDlq: 'QueuesIngestDlq9A58644E',
        ingestFifo: 'QueuesIngestFifoBB9FB0FC',
        ingestFifoDlq: 'QueuesIngestFifoDlq741C3AB7',
        flush: 'QueuesFlushA9CE9627',
        flushDlq: 'QueuesFlushDlqD3001665',
      });
    });

    it('renders every deployed id in the template, as that resource type', () => {
      const resources = s.template.toJSON().Resources as Record<string, { Type: string }>;
      for (const [type, ids] of Object.entries(DEPLOYED)) {
        for (const id of ids) expect(resources[id]?.Type, id).toBe(type);
      }
    });

    it('keeps them in a stack of another stage too, so every stage upgrades the same way', () => {
      const staging = synth({ stage: 'staging' });
      expect(staging.stack.stackName).toBe('Shardwal-staging');
      const resources = staging.template.toJSON().Resources as Record<string, unknown>;
      for (const ids of Object.values(DEPLOYED)) {
        for (const id of ids) expect(resources[id], id).toBeDefined();
      }
    });

    it('keeps the API, functions and schedules in place too (the service id is hidden)', () => {
      // Not pinned: kept by the `Default` service id, so an upgrade updates them in place.
      expect(logicalIdOf(s.service.api!.httpApi)).toBe('ApiHttpApi4C294DC0');
      expect(logicalIdOf(s.service.functions.byName.putHttp!)).toBe('FunctionsputHttp0F0388D0');
      expect(logicalIdOf(s.service.schedules.ticker)).toBe('SchedulesFlushTickerD3B015FA');
    });

    it('pins every retained queue when asked, the FIFO ingest queue and its DLQ included', () => {
      const { service } = synthWith({
        ingestFifoQueue: 'AdoptedFifo',
        ingestFifoDlq: 'AdoptedFifoDlq',
      });
      expect(logicalIdOf(service.queues.ingestFifo!)).toBe('AdoptedFifo');
      expect(logicalIdOf(service.queues.ingestFifoDlq!)).toBe('AdoptedFifoDlq');
    });
  });
});

/** A service in a bare stack with `logicalIds`. */
function synthWith(logicalIds: PinnedLogicalIds) {
  const app = new App({ context: cdkJsonContext() });
  const stack = new Stack(app, 'Adopting');
  const service = new ShardwalService(stack, 'Svc', { logicalIds, functionCode: INLINE_CODE });
  return { service };
}
