import { App } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { CAPACITY_DEFAULTS, CAPACITY_KEYS } from '../../infra/capacity-settings.js';
import {
  ContextError,
  contextSettings,
  settingsFromContext,
  validateDeploySettings,
} from '../../infra/settings.js';
import { createShardwalApp, DEFAULT_STAGE, stackIdFor } from '../../infra/shardwal-app.js';
import { ConfigError } from '../../lib/errors.js';
import { cdkJsonContext, INLINE_CODE } from './support.js';

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

    it('passes the service default interval, capacity mode, spill threshold and flush workers explicitly when the user set none', () => {
      expect(from({}).environment).toEqual({
        SHARDWAL_FLUSH_INTERVAL_MS: '1000',
        SHARDWAL_CAPACITY_MODE: 'on-demand',
        SHARDWAL_SPILL_BYTES: '8192',
        SHARDWAL_FLUSH_WORKERS: '40',
      });
    });
  });

  describe('service settings', () => {
    it('passes only the settings the user set, normalised, under their env names', () => {
      const s = from({ maxBufferedBytes: '16777216', walRetentionMs: 0, durablePuts: 'false' });
      expect(s.environment).toEqual({
        SHARDWAL_FLUSH_INTERVAL_MS: '1000',
        SHARDWAL_CAPACITY_MODE: 'on-demand',
        SHARDWAL_SPILL_BYTES: '8192',
        SHARDWAL_FLUSH_WORKERS: '40',
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

    it('rejects more flush workers than an SQS event source can be capped at', () => {
      expect(from({ flushWorkers: 1_000 }).environment.SHARDWAL_FLUSH_WORKERS).toBe('1000');
      expect(() => from({ flushWorkers: 1_001 })).toThrow(
        /SHARDWAL_FLUSH_WORKERS=1001: expected at most 1000/,
      );
    });

    it("rejects a body limit above Lambda's synchronous payload limit", () => {
      expect(() => from({ maxBodyBytes: 7 * 1024 * 1024 })).toThrow(/SHARDWAL_MAX_BODY_BYTES/);
    });
  });

  describe('capacityMode and spillBytes', () => {
    it("always passes the mode and the mode's default spill threshold, resolved", () => {
      const provisioned = from({ capacityMode: 'provisioned' });
      expect(provisioned.service).toMatchObject({
        capacityMode: 'provisioned',
        spillBytes: 18_432,
      });
      expect(provisioned.environment).toMatchObject({
        SHARDWAL_CAPACITY_MODE: 'provisioned',
        SHARDWAL_SPILL_BYTES: '18432',
      });
    });

    it('passes a threshold the user set, and off as off', () => {
      expect(from({ spillBytes: '65536' }).environment.SHARDWAL_SPILL_BYTES).toBe('65536');
      const off = from({ spillBytes: 'off' });
      expect(off.service.spillBytes).toBeUndefined();
      expect(off.environment.SHARDWAL_SPILL_BYTES).toBe('off');
    });

    it('rejects an unknown mode and a malformed threshold with the service messages', () => {
      expect(() => from({ capacityMode: 'reserved' })).toThrow(
        /SHARDWAL_CAPACITY_MODE="reserved": expected on-demand or provisioned/,
      );
      expect(() => from({ spillBytes: '-1' })).toThrow(/SHARDWAL_SPILL_BYTES="-1"/);
      expect(() => from({ spillBytes: 'never' })).toThrow(ConfigError);
    });
  });

  describe('provisioned capacity', () => {
    it('takes the documented defaults when provisioned, and none on demand', () => {
      expect(from({}).capacity).toBeUndefined();
      expect(from({ capacityMode: 'provisioned' }).capacity).toEqual(CAPACITY_DEFAULTS);
      expect(CAPACITY_DEFAULTS).toEqual({
        table: { read: { min: 10, max: 500 }, write: { min: 10, max: 1_000 } },
        pendingIndex: { read: { min: 5, max: 100 }, write: { min: 5, max: 500 } },
        registryIndex: { read: { min: 1, max: 100 }, write: { min: 1, max: 50 } },
      });
    });

    it('reads a range as min-max and one number as a fixed capacity, per key', () => {
      const s = from({
        capacityMode: 'provisioned',
        tableWriteCapacity: '20 - 4000',
        pendingIndexReadCapacity: 7,
        registryIndexWriteCapacity: '3',
      });
      expect(s.capacity?.table.write).toEqual({ min: 20, max: 4_000 });
      expect(s.capacity?.pendingIndex.read).toEqual({ min: 7, max: 7 });
      expect(s.capacity?.registryIndex.write).toEqual({ min: 3, max: 3 });
      expect(s.capacity?.table.read).toEqual(CAPACITY_DEFAULTS.table.read);
    });

    it.each([
      [
        'tableWriteCapacity',
        '400-20',
        /tableWriteCapacity="400-20".*minimum 400 exceeds the maximum 20/,
      ],
      ['tableReadCapacity', '0-10', /tableReadCapacity="0-10".*from 1 to 40000/],
      ['pendingIndexWriteCapacity', '5-40001', /pendingIndexWriteCapacity="5-40001"/],
      ['registryIndexReadCapacity', 'lots', /registryIndexReadCapacity="lots".*<min>-<max>/],
      ['tableWriteCapacity', '1.5-3', /tableWriteCapacity="1.5-3"/],
    ])('rejects %s=%j, naming the key', (key, value, message) => {
      expect(() => from({ capacityMode: 'provisioned', [key]: value })).toThrow(ContextError);
      expect(() => from({ capacityMode: 'provisioned', [key]: value })).toThrow(message);
    });

    it('rejects a capacity range on demand rather than ignoring it', () => {
      expect(() => from({ tableWriteCapacity: '10-100' })).toThrow(
        /tableWriteCapacity="10-100": only with capacityMode=provisioned/,
      );
    });

    it('knows every capacity key (no typo error)', () => {
      const all = Object.fromEntries(CAPACITY_KEYS.map((key) => [key, '5-50']));
      expect(() => from({ capacityMode: 'provisioned', ...all })).not.toThrow();
      expect(CAPACITY_KEYS).toHaveLength(6);
    });
  });

  describe('logLevel', () => {
    it('defaults to INFO and accepts TRACE, DEBUG or INFO in any case', () => {
      expect(from({}).logLevel).toBe('INFO');
      expect(from({ logLevel: 'debug' }).logLevel).toBe('DEBUG');
      expect(from({ logLevel: 'TRACE' }).logLevel).toBe('TRACE');
    });

    it('refuses a level above INFO, saying the metrics would be dropped', () => {
      for (const level of ['WARN', 'error', 'SILENT']) {
        expect(() => from({ logLevel: level })).toThrow(ContextError);
        expect(() => from({ logLevel: level })).toThrow(
          /logLevel=.*Lambda drops the EMF metric lines/,
        );
      }
    });

    it('refuses an unknown level, listing the accepted ones', () => {
      expect(() => from({ logLevel: 'loud' })).toThrow(
        /logLevel="loud": expected one of TRACE, DEBUG, INFO$/,
      );
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

    it('defaults to no stage, reserved concurrency on, ingest capped at 40 + 10, no producer accounts', () => {
      const s = from({});
      expect([s.stage, s.reservedConcurrency, s.ingestMaxConcurrency, s.producerAccounts]).toEqual([
        undefined,
        true,
        { standard: 40, fifo: 10 },
        [],
      ]);
    });

    it('accepts a stage of letters, digits and hyphens and rejects one that cannot name a stack', () => {
      expect(from({ stage: 'staging-2' }).stage).toBe('staging-2');
      expect(() => from({ stage: '2nd' })).toThrow(/stage="2nd"/);
      expect(() => from({ stage: 'prod_eu' })).toThrow(ContextError);
      expect(() => from({ stage: 'x'.repeat(33) })).toThrow(/stage=/);
    });

    it('turns reserved concurrency off with off or false, and rejects anything else', () => {
      expect(from({ reservedConcurrency: 'off' }).reservedConcurrency).toBe(false);
      expect(from({ reservedConcurrency: false }).reservedConcurrency).toBe(false);
      expect(from({ reservedConcurrency: 'on' }).reservedConcurrency).toBe(true);
      expect(() => from({ reservedConcurrency: 'no' })).toThrow(/reservedConcurrency="no"/);
    });

    it("keeps each ingest source's cap within Lambda's 2 to 1000", () => {
      expect(from({ ingestStandardMaxConcurrency: '2' }).ingestMaxConcurrency.standard).toBe(2);
      expect(from({ ingestFifoMaxConcurrency: 7 }).ingestMaxConcurrency).toEqual({
        standard: 40,
        fifo: 7,
      });
      expect(() => from({ ingestFifoMaxConcurrency: 1 })).toThrow(/from 2 to 1000/);
      expect(() => from({ ingestStandardMaxConcurrency: 1001 })).toThrow(
        /ingestStandardMaxConcurrency=1001/,
      );
    });

    it('refuses the one ingest cap that each source got whole, naming the keys that replace it', () => {
      expect(() => from({ ingestMaxConcurrency: 50 })).toThrow(
        /ingestMaxConcurrency=50: replaced by ingestStandardMaxConcurrency and ingestFifoMaxConcurrency/,
      );
    });

    it('reads producer accounts as a comma-separated list of 12-digit ids', () => {
      expect(from({ producerAccounts: '111122223333, 444455556666' }).producerAccounts).toEqual([
        '111122223333',
        '444455556666',
      ]);
      expect(() => from({ producerAccounts: '1111' })).toThrow(/producerAccounts.*"1111"/);
    });

    it('accepts an SNS topic ARN for the alarms and rejects anything else', () => {
      const arn = 'arn:aws:sns:eu-west-1:111122223333:pager';
      expect(from({ alarmTopicArn: arn }).alarmTopicArn).toBe(arn);
      expect(() => from({ alarmTopicArn: 'pager' })).toThrow(/alarmTopicArn="pager"/);
    });

    it('ignores CDK keys such as feature flags', () => {
      expect(() =>
        from({ '@aws-cdk/core:checkSecretUsage': true, 'cli-telemetry': false }),
      ).not.toThrow();
    });
  });
});

describe('validateDeploySettings', () => {
  it('applies the context rules to a settings object, naming the key or the setting', () => {
    expect(validateDeploySettings({ flushIntervalMs: 10_000 }).ticker.ticksPerInvocation).toBe(6);
    expect(() => validateDeploySettings({ flushIntervalMs: 0 })).toThrow(
      /SHARDWAL_FLUSH_INTERVAL_MS=0/,
    );
    expect(() =>
      validateDeploySettings({ flushIntervalMS: 10_000 } as Record<string, unknown>),
    ).toThrow(/flushIntervalMS.*not a shardwal context key/);
  });
});

describe('contextSettings', () => {
  it('keeps the camelCase keys of the context and leaves the CDK feature flags out', () => {
    const app = new App({
      context: { flushIntervalMs: 10_000, '@aws-cdk/core:checkSecretUsage': true, stage: 'x' },
    });
    expect(contextSettings(app)).toEqual({ flushIntervalMs: 10_000, stage: 'x' });
  });
});

describe('createShardwalApp', () => {
  it('fails synth on flushIntervalMs 0 before building anything', () => {
    expect(() => createShardwalApp({ context: { flushIntervalMs: 0 } })).toThrow(
      /SHARDWAL_FLUSH_INTERVAL_MS=0/,
    );
  });

  it('names the stack Shardwal for the default stage and Shardwal-<stage> for another', () => {
    expect(stackIdFor(DEFAULT_STAGE)).toBe('Shardwal');
    expect(stackIdFor('staging')).toBe('Shardwal-staging');
    const { stack } = createShardwalApp({
      context: { stage: 'staging' },
      functionCode: INLINE_CODE,
    });
    expect(stack.stackName).toBe('Shardwal-staging');
    expect(stack.service.stage).toBe('staging');
  });

  it('deploys the stage cdk.json names, with the stage the functions and metrics carry', () => {
    const { stack } = createShardwalApp({ context: cdkJsonContext(), functionCode: INLINE_CODE });
    expect(cdkJsonContext().stage).toBe(DEFAULT_STAGE);
    expect(stack.stackName).toBe('Shardwal');
    expect(stack.service.stage).toBe(DEFAULT_STAGE);
  });
});
