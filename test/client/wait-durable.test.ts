/**
 * `waitDurable` against the real status route (dynalite, memory store): the
 * client believes only `durable`, and a seq sealed void fails loud.
 */
import { describe, expect, it } from 'vitest';
import { SeqNotDurableError, SeqWaitEnd } from '../../lib/client/errors.js';
import { ShardwalHttpClient } from '../../lib/client/http-client.js';
import { ErrorKind } from '../../lib/errors.js';
import { flushShard } from '../../lib/flush/flush-shard.js';
import { handleStatus } from '../../lib/http/status-route.js';
import { EventFile, httpEvent } from '../support/events.js';
import { type Fixture, fixture, useDynalite } from '../support/harness.js';
import { allocateOnly, putBatch } from '../support/wal-chain.js';

const dynalite = useDynalite();
const SHARD = 'orders';

/** The status route as a fetch: each request becomes its API Gateway event. */
async function routeFetch(f: Fixture, input: string | URL | Request): Promise<Response> {
  const [, , , shard, , seq] = new URL(String(input)).pathname.split('/');
  const event = httpEvent(EventFile.apiSeqStatus, {
    shard: decodeURIComponent(shard!),
    seq: decodeURIComponent(seq!),
  });
  const result = await handleStatus(event, f.table, f.store);
  return new Response(result.body, {
    status: result.statusCode,
    headers: { 'content-type': 'application/json' },
  });
}

/** A client on the route; `beforeRequest` runs before each request is answered. */
function clientOf(f: Fixture, beforeRequest: () => Promise<void> = async () => undefined) {
  return new ShardwalHttpClient({
    endpoint: 'http://api.test',
    fetch: (async (input: string | URL | Request) => {
      await beforeRequest();
      return routeFetch(f, input);
    }) as typeof fetch,
    retry: { sleep: async () => undefined },
  });
}

describe('ShardwalHttpClient', () => {
  describe('waitDurable', () => {
    it('rejects with end void for a seq sealed void then flushed, and resolves for its neighbour', async () => {
      const f = await fixture(dynalite(), { gapSealMs: 2_000 });
      await putBatch(f.put, SHARD, [{ n: 1 }]);
      await allocateOnly(f, SHARD, 20); // seq 2: its put died before writing
      await putBatch(f.put, SHARD, [{ n: 3 }]);
      f.clock.advance(5_000);
      expect(await flushShard(f.flushDeps('a'), SHARD)).toMatchObject({ sealed: [2] });
      const client = clientOf(f);
      const error = await client.waitDurable(SHARD, 2).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SeqNotDurableError);
      expect(error).toMatchObject({ end: SeqWaitEnd.void, kind: ErrorKind.fenced });
      expect((error as SeqNotDurableError).status).toMatchObject({
        state: 'void',
        durable: false,
        durableSeq: 3,
      });
      await expect(client.waitDurable(SHARD, 3)).resolves.toMatchObject({
        state: 'durable',
        durable: true,
      });
    });

    it('keeps polling a pending seq and resolves once a flush makes it durable', async () => {
      const f = await fixture(dynalite());
      await putBatch(f.put, SHARD, [{ n: 1 }]);
      let polls = 0;
      const client = clientOf(f, async () => {
        polls += 1;
        if (polls === 3) await flushShard(f.flushDeps('a'), SHARD);
      });
      await expect(client.waitDurable(SHARD, 1, { pollMs: 1 })).resolves.toMatchObject({
        state: 'durable',
      });
      expect(polls).toBe(3);
    });
  });
});
