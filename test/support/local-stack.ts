/** Settings of an in-process local stack for tests: free ports, a 50 ms ticker, quiet, no jobs. */
import type { LocalSettings } from '../../lib/local/local-settings.js';

/** Test settings on `dataDir`, with `overrides` applied. */
export function testStackSettings(
  dataDir: string,
  overrides: Partial<LocalSettings> = {},
): LocalSettings {
  return {
    port: 0,
    dynamodbPort: 0,
    sqsPort: 0,
    dataDir,
    flushIntervalMs: 50,
    logLevel: 'SILENT',
    exportEveryMs: undefined,
    verifyEveryMs: undefined,
    sweepEveryMs: undefined,
    ...overrides,
  };
}
