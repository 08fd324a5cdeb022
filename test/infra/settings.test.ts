import { describe, expect, it } from 'vitest';
import { ContextError, settingsFromContext } from '../../infra/settings.js';
import { createShardwalApp } from '../../infra/shardwal-app.js';
import { ConfigError } from '../../lib/errors.js';

const from = (context: Record<string, unknown>) =>
  settingsFromContext((key) => context[key], Object.keys(context));

describe('settingsFromContext', () => {
  describe('flushIntervalMs', () => {
    it('rejects 0, naming SHARDWAL_FLUSH_INTERVAL_MS and the value', () => {
      expect(() => from({ flushIntervalMs: 0 })).toThrow(ConfigError);
      expect(() => from({ flushIntervalMs: '0' })).toThrow(
        /SHARDWAL_FLUSH_INTERVAL_MS="0".*at least 1/,
      );
    });

    it('rejects 90000 because intervals of a minute or more must be whole minutes', () => {
      expect(() => from({ flushIntervalMs: '90000' })).toThrow(
        /SHARDWAL_FLUSH_INTERVAL_MS="90000".*whole minutes/,
      );
    });

    it('plans one invocation a minute and passes 10000 to the functions when 10000', () => {
      const s = from({ flushIntervalMs: '10000' });
      expect(s.ticker).toEqual({ rateMinutes: 1, ticksPerInvocation: 6, tickIntervalMs: 10_000 });
      expect(s.environment.SHARDWAL_FLUSH_INTERVAL_MS).toBe('10000');
    });

    it('plans a five-minute rate when 300000', () => {
      expect(from({ flushIntervalMs: 300_000 }).ticker.rateMinutes).toBe(5);
    });

    it('rejects off: the deployed stack has no final flush to stand in for the ticker', () => {
      expect(() => from({ flushIntervalMs: 'off', durablePuts: 'off' })).toThrow(
        /SHARDWAL_FLUSH_INTERVAL_MS="off".*needs a flush ticker/,
      );
    });

    it('passes the service default interval explicitly when the user set none', () => {
      expect(from({}).environment).toEqual({ SHARDWAL_FLUSH_INTERVAL_MS: '1000' });
    });
  });

  describe('service settings', () => {
    it('passes only the settings the user set, normalised, under their env names', () => {
      const s = from({ maxBufferedBytes: '16777216', walRetentionMs: 0, durablePuts: 'false' });
      expect(s.environment).toEqual({
        SHARDWAL_FLUSH_INTERVAL_MS: '1000',
        SHARDWAL_MAX_BUFFERED_BYTES: '16777216',
        SHARDWAL_WAL_RETENTION_MS: '0',
        SHARDWAL_DURABLE_PUTS: 'off',
      });
    });

    it('rejects a flush trigger above the buffer limit with the service message', () => {
      expect(() => from({ maxBufferedBytes: 100, flushTriggerBytes: 200 })).toThrow(
        /SHARDWAL_FLUSH_TRIGGER_BYTES=200: must not exceed SHARDWAL_MAX_BUFFERED_BYTES=100/,
      );
    });

    it('rejects a durable wait the HTTP API would cut off', () => {
      expect(() => from({ durableWaitMs: 26_000 })).toThrow(/SHARDWAL_DURABLE_WAIT_MS=26000/);
    });

    it("rejects a body limit above Lambda's synchronous payload limit", () => {
      expect(() => from({ maxBodyBytes: 7 * 1024 * 1024 })).toThrow(/SHARDWAL_MAX_BODY_BYTES/);
    });
  });

  describe('deployment keys', () => {
    it('defaults to IAM auth, export every 15 minutes, verify hourly, no alarm email', () => {
      const s = from({});
      expect(s.authorizer).toEqual({ kind: 'iam' });
      expect([s.exportEveryMinutes, s.verifyEveryMinutes, s.alarmEmail]).toEqual([
        15,
        60,
        undefined,
      ]);
    });

    it('rejects a schedule of 0 minutes, naming the key', () => {
      expect(() => from({ exportEveryMinutes: '0' })).toThrow(ContextError);
      expect(() => from({ verifyEveryMinutes: 1.5 })).toThrow(/verifyEveryMinutes=1.5/);
    });

    it('requires an https issuer and an audience for the JWT authorizer', () => {
      expect(() => from({ authorizer: 'jwt' })).toThrow(/jwtIssuer/);
      expect(() => from({ authorizer: 'jwt', jwtIssuer: 'https://idp.example.com' })).toThrow(
        /jwtAudience/,
      );
      expect(
        from({ authorizer: 'jwt', jwtIssuer: 'https://idp.example.com', jwtAudience: 'a, b' })
          .authorizer,
      ).toEqual({ kind: 'jwt', issuer: 'https://idp.example.com', audience: ['a', 'b'] });
    });

    it('rejects an unknown authorizer and a malformed alarm email', () => {
      expect(() => from({ authorizer: 'none' })).toThrow(/authorizer="none"/);
      expect(() => from({ alarmEmail: 'ops' })).toThrow(/alarmEmail="ops"/);
    });

    it('rejects a camelCase key it does not know (a typo would deploy the default)', () => {
      expect(() => from({ flushIntervalMS: 10_000 })).toThrow(
        /flushIntervalMS.*not a shardwal context key/,
      );
    });

    it('ignores CDK keys such as feature flags', () => {
      expect(() =>
        from({ '@aws-cdk/core:checkSecretUsage': true, 'cli-telemetry': false }),
      ).not.toThrow();
    });
  });
});

describe('createShardwalApp', () => {
  it('fails synth on flushIntervalMs 0 before building anything', () => {
    expect(() => createShardwalApp({ context: { flushIntervalMs: 0 } })).toThrow(
      /SHARDWAL_FLUSH_INTERVAL_MS=0/,
    );
  });
});
