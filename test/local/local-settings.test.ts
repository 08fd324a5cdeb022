import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../lib/errors.js';
import { localSettingsFromEnv } from '../../lib/local/local-settings.js';

describe('localSettingsFromEnv', () => {
  it('defaults to port 3000 (DynamoDB 3001, SQS 3002), ./.shardwal, a 1000 ms tick, WARN logs, a 10-minute TTL sweep', () => {
    expect(localSettingsFromEnv({})).toEqual({
      port: 3000,
      dynamodbPort: 3001,
      sqsPort: 3002,
      dataDir: './.shardwal',
      flushIntervalMs: 1000,
      logLevel: 'WARN',
      exportEveryMs: 300_000,
      verifyEveryMs: 3_600_000,
      sweepEveryMs: 600_000,
    });
  });

  it('makes every port ephemeral when PORT is 0, unless one is set', () => {
    expect(localSettingsFromEnv({ PORT: '0', SHARDWAL_SQS_PORT: '4566' })).toMatchObject({
      port: 0,
      dynamodbPort: 0,
      sqsPort: 4566,
    });
  });

  it.each([
    ['1001', 1_001],
    ['59999', 59_999],
    ['60000', 60_000],
    ['300000', 300_000],
  ])('accepts the flush interval %s, as a deployment does', (value, ms) => {
    expect(localSettingsFromEnv({ SHARDWAL_FLUSH_INTERVAL_MS: value }).flushIntervalMs).toBe(ms);
  });

  it.each([
    [
      'SHARDWAL_FLUSH_INTERVAL_MS',
      '90000',
      /SHARDWAL_FLUSH_INTERVAL_MS="90000": intervals of a minute or more must be whole minutes/,
    ],
    ['SHARDWAL_FLUSH_INTERVAL_MS', '0', /SHARDWAL_FLUSH_INTERVAL_MS="0": expected at least 1/],
    [
      'SHARDWAL_FLUSH_INTERVAL_MS',
      '1.5',
      /SHARDWAL_FLUSH_INTERVAL_MS="1.5": expected a whole number/,
    ],
    [
      'SHARDWAL_FLUSH_INTERVAL_MS',
      'off',
      /SHARDWAL_FLUSH_INTERVAL_MS="off": the local stack needs its ticker/,
    ],
    ['PORT', '70000', /PORT="70000": expected a port number/],
    ['SHARDWAL_LOG_LEVEL', 'loud', /SHARDWAL_LOG_LEVEL="loud": expected one of/],
    [
      'SHARDWAL_LOCAL_EXPORT_EVERY_MS',
      '0',
      /SHARDWAL_LOCAL_EXPORT_EVERY_MS="0": .*at least 1, or off/,
    ],
    ['SHARDWAL_LOCAL_EXPORT_EVERY_MS', '-5', /SHARDWAL_LOCAL_EXPORT_EVERY_MS="-5": .*at least 1/],
    [
      'SHARDWAL_LOCAL_VERIFY_EVERY_MS',
      '1.5',
      /SHARDWAL_LOCAL_VERIFY_EVERY_MS="1.5": .*whole number/,
    ],
    ['SHARDWAL_LOCAL_VERIFY_EVERY_MS', 'never', /SHARDWAL_LOCAL_VERIFY_EVERY_MS="never": /],
  ])('rejects %s=%s naming the setting and the value', (name, value, message) => {
    const attempt = () => localSettingsFromEnv({ [name]: value });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(message);
  });

  it('reads the export and verify periods, and off for either', () => {
    expect(
      localSettingsFromEnv({
        SHARDWAL_LOCAL_EXPORT_EVERY_MS: '250',
        SHARDWAL_LOCAL_VERIFY_EVERY_MS: 'off',
      }),
    ).toMatchObject({ exportEveryMs: 250, verifyEveryMs: undefined });
  });

  it('rejects a default sibling port past 65535, naming the setting to set', () => {
    expect(() => localSettingsFromEnv({ PORT: '65535' })).toThrow(/SHARDWAL_DYNAMODB_PORT/);
    expect(
      localSettingsFromEnv({
        PORT: '65535',
        SHARDWAL_DYNAMODB_PORT: '0',
        SHARDWAL_SQS_PORT: '0',
      }).port,
    ).toBe(65535);
  });
});
