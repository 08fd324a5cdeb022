/**
 * What an HTTP put writes to the logs. An accepted put logs one line at
 * DEBUG, below the deployed level (INFO), so the logs of a busy stage do
 * not grow with its puts (the access log and the metrics count them). A put
 * refused because of the service (5xx) still logs at ERROR.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ErrorKind } from '../../lib/errors.js';
import { poisonShard } from '../../lib/fence/commit.js';
import { handlePut } from '../../lib/http/put-route.js';
import { logger } from '../../lib/observability/telemetry.js';
import { EventFile, httpEvent } from '../support/events.js';
import { fixture, useDynalite } from '../support/harness.js';

const dynalite = useDynalite();

afterEach(() => {
  vi.restoreAllMocks();
});

/** Spies on every level of the logger. */
function spyLevels() {
  return {
    debug: vi.spyOn(logger, 'debug'),
    info: vi.spyOn(logger, 'info'),
    warn: vi.spyOn(logger, 'warn'),
    error: vi.spyOn(logger, 'error'),
  };
}

describe('handlePut', () => {
  describe('logging', () => {
    it('logs an accepted put at DEBUG, with its ack, and nothing at INFO or above', async () => {
      const f = await fixture(dynalite());
      const spies = spyLevels();
      const result = await handlePut(httpEvent(EventFile.apiPut), f.put);
      expect(result.statusCode).toBe(202);
      expect(spies.debug).toHaveBeenCalledWith(
        'put',
        expect.objectContaining({ shard: 'orders', seq: 1, rows: 2, repeated: false }),
      );
      expect(spies.info).not.toHaveBeenCalled();
      expect(spies.warn).not.toHaveBeenCalled();
      expect(spies.error).not.toHaveBeenCalled();
    });

    it('logs a put refused by a poisoned shard at ERROR, naming the reason', async () => {
      const f = await fixture(dynalite());
      await poisonShard(f.table, 'orders', 'WAL object at position 3 diverged', 1);
      const spies = spyLevels();
      const result = await handlePut(httpEvent(EventFile.apiPut), f.put);
      expect(result.statusCode).toBe(503);
      expect(spies.error).toHaveBeenCalledTimes(1);
      const [message, fields] = spies.error.mock.calls[0]! as [string, { error: Error }];
      expect(message).toBe('request failed');
      expect(fields.error).toMatchObject({ kind: ErrorKind.poisoned });
      expect(fields.error.message).toContain('WAL object at position 3 diverged');
      expect(spies.debug).not.toHaveBeenCalledWith('put', expect.anything());
    });
  });
});
