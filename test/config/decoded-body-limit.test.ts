import { describe, expect, it } from 'vitest';
import {
  configFromEnv,
  DECODED_BODY_FACTOR,
  SETTINGS,
  validateSettings,
} from '../../lib/config.js';
import { ConfigError } from '../../lib/errors.js';

describe('validateSettings', () => {
  describe('maxDecodedBodyBytes', () => {
    it('derives 4 × the body limit when not given: 4 MiB by default', () => {
      expect(DECODED_BODY_FACTOR).toBe(4);
      expect(validateSettings({}).maxDecodedBodyBytes).toBe(4 * 1024 * 1024);
      expect(validateSettings({ maxBodyBytes: 2_000 }).maxDecodedBodyBytes).toBe(8_000);
    });

    it('takes a given value at or above the body limit', () => {
      expect(
        configFromEnv({ [SETTINGS.maxDecodedBodyBytes.env]: '1048576' }).maxDecodedBodyBytes,
      ).toBe(1024 * 1024);
    });

    it('refuses one below the body limit, naming both settings', () => {
      expect(() => validateSettings({ maxBodyBytes: 2_000, maxDecodedBodyBytes: 1_999 })).toThrow(
        ConfigError,
      );
      expect(() => validateSettings({ maxBodyBytes: 2_000, maxDecodedBodyBytes: 1_999 })).toThrow(
        'SHARDWAL_MAX_DECODED_BODY_BYTES=1999: must be at least SHARDWAL_MAX_BODY_BYTES=2000',
      );
    });
  });
});
