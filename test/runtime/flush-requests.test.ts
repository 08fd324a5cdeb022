import type { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { UnavailableError } from '../../lib/errors.js';
import { FAN_OUT_SEND, sqsFanOut } from '../../lib/runtime/flush-requests.js';

type Entry = { Id: string; MessageBody: string };
type Reply = { Failed?: { Id: string; Message: string; SenderFault: boolean; Code: string }[] };

/**
 * An SQS client that answers SendMessageBatch from `answer` (called per
 * request, in send order), recording every request and the most in flight.
 */
function fakeSqs(answer: (entries: Entry[], call: number) => Reply | Promise<Reply>) {
  const requests: Entry[][] = [];
  let inFlight = 0;
  const seen = { maxInFlight: 0 };
  const client = {
    send: async (command: SendMessageBatchCommand) => {
      const entries = command.input.Entries as Entry[];
      requests.push(entries);
      seen.maxInFlight = Math.max(seen.maxInFlight, ++inFlight);
      try {
        await new Promise((resolve) => setTimeout(resolve, 5));
        return await answer(entries, requests.length - 1);
      } finally {
        inFlight--;
      }
    },
  } as unknown as SQSClient;
  return { client, requests, seen };
}

const lists = (count: number, size: number, prefix = 's') =>
  Array.from({ length: count }, (_, m) =>
    Array.from({ length: size }, (_, i) => `${prefix}${m}-${i}`),
  );

/** The shard lists the messages of `requests` name. */
const sentLists = (requests: Entry[][]) =>
  requests.flat().map((entry) => (JSON.parse(entry.MessageBody) as { shards: string[] }).shards);

describe('sqsFanOut', () => {
  describe('send', () => {
    it('sends one message per list, ten to a request, all requests at once', async () => {
      const sqs = fakeSqs(() => ({}));
      const given = lists(25, 3);
      await sqsFanOut(sqs.client, 'queue')(given);
      expect(sqs.requests.map((r) => r.length)).toEqual([10, 10, 5]);
      expect(sqs.seen.maxInFlight).toBe(3);
      expect(sentLists(sqs.requests)).toEqual(given);
      expect(JSON.parse(sqs.requests[0]![0]!.MessageBody)).toMatchObject({ reason: 'fan-out' });
    });

    it('keeps each request within 256 KiB of bodies', async () => {
      const sqs = fakeSqs(() => ({}));
      // 1,500 names of 64 characters: about 100 KB a message, two to a request.
      const long = lists(5, 1_500).map((list) => list.map((name) => name.padEnd(64, 'x')));
      await sqsFanOut(sqs.client, 'queue')(long);
      expect(sqs.requests.map((r) => r.length)).toEqual([2, 2, 1]);
      for (const request of sqs.requests) {
        const bytes = request.reduce((sum, e) => sum + Buffer.byteLength(e.MessageBody), 0);
        expect(bytes).toBeLessThanOrEqual(FAN_OUT_SEND.maxRequestBytes);
      }
      expect(sentLists(sqs.requests)).toEqual(long);
    });

    it('sends again the entries SQS reported failed, so no list is lost to a partial failure', async () => {
      const sqs = fakeSqs((entries, call) =>
        call === 0
          ? {
              Failed: entries
                .filter((_, i) => i % 2 === 0)
                .map((e) => ({ Id: e.Id, Message: 'throttled', SenderFault: false, Code: 'x' })),
            }
          : {},
      );
      const given = lists(4, 2);
      await sqsFanOut(sqs.client, 'queue')(given);
      expect(sqs.requests.map((r) => r.map((e) => e.Id))).toEqual([
        ['0', '1', '2', '3'],
        ['0', '2'],
      ]);
      const delivered = sqs.requests[0]!.filter((_, i) => i % 2 === 1).concat(sqs.requests[1]!);
      expect(sentLists([delivered]).flat().sort()).toEqual(given.flat().sort());
    });

    it('sends again the entries of a request that failed whole', async () => {
      const sqs = fakeSqs((_entries, call) => {
        if (call === 0) throw new Error('socket hang up');
        return {};
      });
      await sqsFanOut(sqs.client, 'queue')(lists(2, 2));
      expect(sqs.requests.map((r) => r.length)).toEqual([2, 2]);
    });

    it('rejects naming what was not handed over once the attempts are spent', async () => {
      const sqs = fakeSqs((entries) => ({
        Failed: entries
          .filter((e) => e.Id === '1')
          .map((e) => ({ Id: e.Id, Message: 'KMS throttled', SenderFault: false, Code: 'x' })),
      }));
      const send = sqsFanOut(sqs.client, 'queue')(lists(3, 7));
      await expect(send).rejects.toBeInstanceOf(UnavailableError);
      await expect(send).rejects.toThrow(
        `1 of 3 messages (7 shards) not sent after ${FAN_OUT_SEND.attempts} attempts: KMS throttled`,
      );
      expect(sqs.requests).toHaveLength(FAN_OUT_SEND.attempts);
    });
  });
});
