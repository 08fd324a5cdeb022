/**
 * A rebuild's cursor reset whose response is lost is re-sent by the SDK. The
 * reset lifts the rebuild's fence, so a put may allocate a seq between the
 * attempt that landed and the re-sent one: the re-sent reset must not put
 * `nextSeq` and the charges back to what the rebuild proved (a second put
 * would then take the same seq, and the shard's `bufferedBytes` would count
 * a charge no allocation made).
 */
import { type DynamoDBClient, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { readShardRecord } from '../../lib/memtable/shard-record.js';
import { rebuildShard } from '../../lib/recovery/rebuild.js';
import { fixture, useDynalite } from '../support/harness.js';
import { allocateOnly, drain, putBatch } from '../support/wal-chain.js';
import { recoveryDepsOf } from './support.js';

const dynalite = useDynalite();
const SHARD = 'reset-retry';

function isCursorReset(command: unknown): boolean {
  return (
    command instanceof UpdateItemCommand &&
    (command.input.UpdateExpression ?? '').includes('rebuiltAtMs')
  );
}

describe('rebuildShard', () => {
  describe('when the response of its cursor reset is lost and the SDK re-sends it', () => {
    it('keeps a seq allocated in between, and its charge', async () => {
      const f = await fixture(dynalite());
      await putBatch(f.put, SHARD, [{ n: 1 }]);
      await drain(f.flushDeps('ticker'), SHARD);

      let between: Awaited<ReturnType<typeof allocateOnly>> | undefined;
      const client = {
        send: async (command: unknown) => {
          // biome-ignore lint/suspicious/noExplicitAny: forwarding any command unchanged
          const forward = () => f.table.client.send(command as any);
          if (!isCursorReset(command) || between) return forward();
          await forward(); // lands; its response is lost
          between = await allocateOnly(f, SHARD, 100);
          return forward(); // the SDK's retry of the same request
        },
      } as unknown as DynamoDBClient;

      const report = await rebuildShard(
        { ...recoveryDepsOf(f), table: { ...f.table, client } },
        SHARD,
      );
      expect(report.status).toBe('rebuilt');
      expect(between?.seq).toBe(2);

      const record = await readShardRecord(f.table, SHARD);
      expect(record).toMatchObject({ durableSeq: 1, nextSeq: 3, bufferedBytes: 100 });
      expect(record?.bufferedBytes).toBe(
        (record?.chargedBytes ?? 0) - (record?.releasedBytes ?? 0),
      );
      const next = await allocateOnly(f, SHARD, 10);
      expect(next.seq).toBe(3);
    });
  });
});
