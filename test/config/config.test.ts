import { describe, expect, it } from 'vitest';
import {
  CAPACITY_MODE_ENV,
  CapacityMode,
  configFromEnv,
  DURABLE_PUTS_ENV,
  type RawSettings,
  resourcesFromEnv,
  SETTINGS,
  SPILL_BYTES_DEFAULT,
  SPILL_BYTES_ENV,
  validateSettings,
} from '../../lib/config.js';
import { ConfigError, ErrorKind } from '../../lib/errors.js';
import { voidLifetimeMs } from '../../lib/liveness.js';
import { planSchedule } from '../../lib/ticker/schedule-plan.js';

const INTERVAL_ENV = SETTINGS.flushIntervalMs.env;

/** The ConfigError `fn` throws (fails the test when it throws nothing or something else). */
function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError, got none');
}

describe('config', () => {
  describe('validateSettings', () => {
    it.each([
      [0, '0'],
      [-5, '-5'],
      [1.5, '1.5'],
      ['abc', '"abc"'],
      ['0', '"0"'],
      ['-1', '"-1"'],
    ])('rejects flush interval %j, naming the setting and the value', (value, shown) => {
      const error = configError(() => validateSettings({ flushIntervalMs: value }));
      expect(error.kind).toBe(ErrorKind.config);
      expect(error.setting).toBe(INTERVAL_ENV);
      expect(error.message).toContain(`${INTERVAL_ENV}=${shown}`);
    });

    it('rejects an interval over a minute that is not whole minutes', () => {
      const error = configError(() => validateSettings({ flushIntervalMs: 90_000 }));
      expect(error.setting).toBe(INTERVAL_ENV);
      expect(error.message).toContain(`${INTERVAL_ENV}=90000`);
      expect(error.message).toContain('whole minutes');
    });

    it('accepts whole minutes and sub-minute intervals', () => {
      expect(validateSettings({ flushIntervalMs: 120_000 }).flushIntervalMs).toBe(120_000);
      expect(validateSettings({ flushIntervalMs: '250' }).flushIntervalMs).toBe(250);
      expect(validateSettings({ flushIntervalMs: 59_999 }).flushIntervalMs).toBe(59_999);
    });

    it('rejects durable puts with the ticker off, naming both settings', () => {
      for (const durablePuts of [undefined, 'on']) {
        const error = configError(() =>
          validateSettings({ flushIntervalMs: 'off', durablePuts } as RawSettings),
        );
        expect(error.setting).toBe(DURABLE_PUTS_ENV);
        expect(error.message).toContain(DURABLE_PUTS_ENV);
        expect(error.message).toContain(`${INTERVAL_ENV}=off`);
      }
    });

    it('accepts the ticker off when durable puts are off too', () => {
      const config = validateSettings({ flushIntervalMs: 'off', durablePuts: 'off' });
      expect(config.flushIntervalMs).toBeUndefined();
      expect(config.durablePuts).toBe(false);
      expect(config.durableWaitMs).toBe(0);
    });

    it('rejects an unknown durable-puts switch value', () => {
      const error = configError(() => validateSettings({ durablePuts: 'maybe' }));
      expect(error.setting).toBe(DURABLE_PUTS_ENV);
      expect(error.message).toContain('"maybe"');
    });

    it('rejects a flush trigger above the buffer limit, naming both', () => {
      const error = configError(() =>
        validateSettings({ flushTriggerBytes: 2_000, maxBufferedBytes: 1_000 }),
      );
      expect(error.setting).toBe(SETTINGS.flushTriggerBytes.env);
      expect(error.message).toContain(`${SETTINGS.flushTriggerBytes.env}=2000`);
      expect(error.message).toContain(`${SETTINGS.maxBufferedBytes.env}=1000`);
    });

    it.each(
      (Object.keys(SETTINGS) as (keyof typeof SETTINGS)[]).filter(
        (name) => name !== 'flushIntervalMs',
      ),
    )('rejects %s below its minimum or not whole, naming it', (name) => {
      const { env, min } = SETTINGS[name];
      for (const bad of [min - 1, 'x', 2.5]) {
        const error = configError(() => validateSettings({ [name]: bad }));
        expect(error.setting).toBe(env);
        expect(error.message).toContain(`${env}=${JSON.stringify(bad)}`);
      }
    });

    it('fills every default', () => {
      const config = validateSettings({});
      for (const [name, spec] of Object.entries(SETTINGS)) {
        const derived = ['durableWaitMs', 'gapSealMs', 'reservationLeaseMs'];
        if ([...derived, 'flushConcurrency', 'maxShardsPerTick'].includes(name)) continue;
        expect(config[name as keyof typeof config], name).toBe(spec.default);
      }
      expect(config.durablePuts).toBe(true);
    });

    it('derives the durable wait from the interval when unset: three ticks, within 1-25 s', () => {
      expect(validateSettings({}).durableWaitMs).toBe(3_000);
      expect(validateSettings({ flushIntervalMs: 100 }).durableWaitMs).toBe(1_000);
      expect(validateSettings({ flushIntervalMs: 5_000 }).durableWaitMs).toBe(15_000);
      expect(validateSettings({ flushIntervalMs: 60_000 }).durableWaitMs).toBe(25_000);
      expect(validateSettings({ durableWaitMs: 500 }).durableWaitMs).toBe(500);
    });
  });

  describe('liveness bounds', () => {
    it('derives the gap seal and the reservation lease from the put deadline and clock skew', () => {
      const config = validateSettings({});
      expect(config).toMatchObject({ putDeadlineMs: 5_000, clockSkewMs: 1_000 });
      expect(config.gapSealMs).toBe(6_000);
      expect(config.reservationLeaseMs).toBe(6_000);
      expect(validateSettings({ putDeadlineMs: 2_000, clockSkewMs: 500 })).toMatchObject({
        gapSealMs: 2_500,
        reservationLeaseMs: 2_500,
      });
    });

    it('refuses a gap seal or reservation lease a put could outlive, naming it', () => {
      for (const name of ['gapSealMs', 'reservationLeaseMs'] as const) {
        const error = configError(() => validateSettings({ [name]: 5_999 }));
        expect(error.setting).toBe(SETTINGS[name].env);
        expect(error.message).toContain('must be at least');
        expect(validateSettings({ [name]: 6_000 })[name]).toBe(6_000);
      }
    });

    it('keeps a void longer than any put and any idempotency record that could ask about it', () => {
      const config = validateSettings({});
      const lifetime = voidLifetimeMs(config);
      expect(lifetime).toBeGreaterThanOrEqual(
        config.putDeadlineMs + config.gapSealMs + config.clockSkewMs,
      );
      expect(lifetime).toBeGreaterThan(config.idempotencyTtlMs + config.reservationLeaseMs);
    });
  });

  describe('capacity mode and spill threshold', () => {
    it('defaults to on-demand and its break-even threshold', () => {
      expect(validateSettings({})).toMatchObject({
        capacityMode: CapacityMode.onDemand,
        spillBytes: SPILL_BYTES_DEFAULT[CapacityMode.onDemand],
      });
    });

    it('takes the provisioned threshold in provisioned mode', () => {
      expect(validateSettings({ capacityMode: 'provisioned' })).toMatchObject({
        capacityMode: CapacityMode.provisioned,
        spillBytes: SPILL_BYTES_DEFAULT[CapacityMode.provisioned],
      });
    });

    it('takes a threshold given, 0 included, and off for never', () => {
      expect(validateSettings({ spillBytes: '0' }).spillBytes).toBe(0);
      expect(validateSettings({ spillBytes: 65_536 }).spillBytes).toBe(65_536);
      expect(validateSettings({ spillBytes: 'off' }).spillBytes).toBeUndefined();
    });

    it.each([['-1'], ['8k'], [1.5]])('refuses the threshold %s, naming it', (raw) => {
      expect(configError(() => validateSettings({ spillBytes: raw })).message).toContain(
        SPILL_BYTES_ENV,
      );
    });

    it('refuses an unknown capacity mode, naming it', () => {
      const error = configError(() => validateSettings({ capacityMode: 'reserved' }));
      expect(error.message).toContain(CAPACITY_MODE_ENV);
      expect(error.message).toContain('on-demand or provisioned');
    });

    it('reads both from the environment', () => {
      expect(
        configFromEnv({ [CAPACITY_MODE_ENV]: 'provisioned', [SPILL_BYTES_ENV]: 'off' }),
      ).toMatchObject({ capacityMode: CapacityMode.provisioned, spillBytes: undefined });
    });
  });

  describe('configFromEnv', () => {
    it('reads each setting from its environment name', () => {
      const config = configFromEnv({
        [INTERVAL_ENV]: '250',
        [SETTINGS.maxBodyBytes.env]: '2048',
        [DURABLE_PUTS_ENV]: 'off',
      });
      expect(config).toMatchObject({
        flushIntervalMs: 250,
        maxBodyBytes: 2048,
        durablePuts: false,
      });
    });

    it('treats empty variables as unset', () => {
      expect(configFromEnv({ [INTERVAL_ENV]: '' }).flushIntervalMs).toBe(
        SETTINGS.flushIntervalMs.default,
      );
    });

    it('fails naming the variable', () => {
      const error = configError(() => configFromEnv({ [INTERVAL_ENV]: '-5' }));
      expect(error.message).toContain(`${INTERVAL_ENV}="-5"`);
    });
  });

  describe('resourcesFromEnv', () => {
    it('names a missing resource variable', () => {
      const error = configError(() => resourcesFromEnv({ SHARDWAL_BUCKET: 'b' }));
      expect(error.setting).toBe('SHARDWAL_TABLE');
    });

    it('leaves the flush queue optional', () => {
      expect(resourcesFromEnv({ SHARDWAL_TABLE: 't', SHARDWAL_BUCKET: 'b' })).toEqual({
        tableName: 't',
        bucketName: 'b',
        flushQueueUrl: undefined,
      });
    });
  });
});

describe('planSchedule', () => {
  it.each([
    [10_000, { rateMinutes: 1, ticksPerInvocation: 6, tickIntervalMs: 10_000 }],
    [7_000, { rateMinutes: 1, ticksPerInvocation: 8, tickIntervalMs: 7_000 }],
    [60_000, { rateMinutes: 1, ticksPerInvocation: 1, tickIntervalMs: 60_000 }],
    [300_000, { rateMinutes: 5, ticksPerInvocation: 1, tickIntervalMs: 300_000 }],
  ])('plans %i ms as %j', (intervalMs, plan) => {
    expect(planSchedule(intervalMs)).toEqual(plan);
  });

  it.each([0, -1, 1.5, 90_000])('rejects %j naming the interval setting', (intervalMs) => {
    const error = configError(() => planSchedule(intervalMs));
    expect(error.setting).toBe(INTERVAL_ENV);
    expect(error.message).toContain(`${INTERVAL_ENV}=${intervalMs}`);
  });
});
