/**
 * What the SQS put handler writes to the logs per message. An accepted
 * message logs one line at DEBUG, below the deployed level (INFO); a message
 * refused because its shard is poisoned logs at WARN (held back for a retry).
 */
import type { SQSEvent } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ErrorKind } from '../../lib/errors.js';
import { poisonShard } from '../../lib/fence/commit.js';
import { logger } from '../../lib/observability/telemetry.js';
import { handlePutMessages } from '../../lib/sqs/put-messages.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';
import { lambdaContext } from '../support/lambda-context.js';
import { SqsSample, sample, withRecord } from './events.js';
import { RecordingQueues } from './recording-queues.js';

const dynalite = useDynalite();

afterEach(() => {
  vi.restoreAllMocks();
});

function handle(f: Fixture, event: SQSEvent, queues: RecordingQueues) {
  return handlePutMessages(event, lambdaContext(), f.put, queues);
}

describe('handlePutMessages', () => {
  describe('logging', () => {
    it('logs an accepted message at DEBUG and nothing at INFO', async () => {
      const f = await fixture(dynalite());
      const [first] = sample(SqsSample.standardBatch).Records;
      const debug = vi.spyOn(logger, 'debug');
      const info = vi.spyOn(logger, 'info');
      const response = await handle(f, { Records: [first!] }, new RecordingQueues());
      expect(response.batchItemFailures).toEqual([]);
      expect(debug).toHaveBeenCalledWith(
        'put',
        expect.objectContaining({ shard: 'clicks', messageId: first!.messageId }),
      );
      expect(info).not.toHaveBeenCalled();
    });

    it('logs a message refused by a poisoned shard at WARN, with its kind and reason', async () => {
      const f = await fixture(dynalite());
      await poisonShard(f.table, 'sick', 'WAL object at position 3 diverged', 1);
      const [first] = sample(SqsSample.standardBatch).Records;
      const sick = withRecord(first!, {
        body: first!.body.replace('clicks', 'sick'),
        messageAttributes: {},
      });
      const warn = vi.spyOn(logger, 'warn');
      const debug = vi.spyOn(logger, 'debug');
      const response = await handle(f, { Records: [sick] }, new RecordingQueues());
      expect(response.batchItemFailures).toEqual([{ itemIdentifier: sick.messageId }]);
      expect(warn).toHaveBeenCalledWith(
        'message not buffered; held back for a retry',
        expect.objectContaining({
          messageId: sick.messageId,
          kind: ErrorKind.poisoned,
          reason: expect.stringContaining('WAL object at position 3 diverged'),
        }),
      );
      expect(debug).not.toHaveBeenCalledWith('put', expect.anything());
    });
  });
});
