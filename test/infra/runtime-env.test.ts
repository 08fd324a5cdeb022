/**
 * What the deployed functions do with the environment the stack gives them:
 * the stage on every metric and log line (the dimensions and fields the
 * alarms and the export-error metric filter select), and S3 checksums on
 * against AWS, off only for an emulator.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { serviceDimensions } from '../../infra/constructs/service-metrics.js';
import { RESOURCE_ENV } from '../../lib/config.js';
import { s3ClientFromEnv } from '../../lib/runtime/object-store-from-env.js';

/** Imports a fresh copy of the telemetry module with `env` set. */
async function telemetryWith(env: Record<string, string | undefined>) {
  vi.resetModules();
  for (const [key, value] of Object.entries(env)) vi.stubEnv(key, value as string);
  return import('../../lib/observability/telemetry.js');
}

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

describe('telemetry', () => {
  describe('metrics', () => {
    it('carries the stage as a dimension when SHARDWAL_STAGE is set, as the alarms expect', async () => {
      const { metrics } = await telemetryWith({ [RESOURCE_ENV.stage]: 'prod' });
      metrics.addMetric('Probe', 'Count', 1);
      const emf = metrics.serializeMetrics() as unknown as Record<string, unknown> & {
        _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][] }[] };
      };
      const [directive] = emf._aws.CloudWatchMetrics;
      expect(directive?.Namespace).toBe('shardwal');
      const dims = serviceDimensions('prod');
      expect(directive?.Dimensions).toEqual([Object.keys(dims)]);
      for (const [name, value] of Object.entries(dims)) expect(emf[name]).toBe(value);
      metrics.clearMetrics();
    });

    it('carries no stage when none is set (the local stack)', async () => {
      const { metrics } = await telemetryWith({ [RESOURCE_ENV.stage]: '' });
      metrics.addMetric('Probe', 'Count', 1);
      const emf = metrics.serializeMetrics() as unknown as Record<string, unknown> & {
        _aws: { CloudWatchMetrics: { Dimensions: string[][] }[] };
      };
      expect(emf._aws.CloudWatchMetrics[0]?.Dimensions).toEqual([['service']]);
      expect(emf.stage).toBeUndefined();
      metrics.clearMetrics();
    });
  });

  describe('logger', () => {
    it('writes level, service and stage on an error line: the fields the export-error filter reads', async () => {
      const lines: string[] = [];
      const { logger } = await telemetryWith({
        [RESOURCE_ENV.stage]: 'prod',
        POWERTOOLS_DEV: 'true',
        POWERTOOLS_LOG_LEVEL: 'ERROR',
      });
      vi.spyOn(console, 'error').mockImplementation((line: unknown) => {
        lines.push(String(line));
      });
      logger.error('export failed', { shard: 'a' });
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0]!)).toMatchObject({
        level: 'ERROR',
        service: 'shardwal',
        stage: 'prod',
        message: 'export failed',
      });
    });
  });
});

describe('s3ClientFromEnv', () => {
  it('leaves checksums at the SDK default (when supported) against AWS', async () => {
    const client = s3ClientFromEnv({});
    expect(await client.config.requestChecksumCalculation()).toBe('WHEN_SUPPORTED');
    expect(await client.config.responseChecksumValidation()).toBe('WHEN_SUPPORTED');
  });

  it('sends checksums only when required to an emulator endpoint', async () => {
    const client = s3ClientFromEnv({ SHARDWAL_S3_ENDPOINT: 'http://127.0.0.1:4569' });
    expect(await client.config.requestChecksumCalculation()).toBe('WHEN_REQUIRED');
    expect(await client.config.responseChecksumValidation()).toBe('WHEN_REQUIRED');
  });
});
