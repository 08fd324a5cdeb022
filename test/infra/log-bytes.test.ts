/**
 * CloudWatch Logs bytes per put, piece by piece (issue 10 measured 1,649:
 * 893 from the handler's INFO line and EMF document, 412 from the access
 * log, 265 from Lambda's START/END/REPORT, 80 from the ticker):
 *
 * - every function logs JSON, with Lambda's system lines at WARN (START,
 *   END and REPORT dropped) and the application at the `logLevel` setting;
 * - the access-log line of a put, with representative values, is measured;
 * - the EMF document of a put invocation is measured, with its dimensions;
 * - the premise of `infra/log-settings.ts`: with Lambda's level set,
 *   Powertools obeys it over POWERTOOLS_LOG_LEVEL and over sampling.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { accessLogFields } from '../../infra/constructs/api.js';
import type { HandlerName } from '../../infra/constructs/functions.js';
import { RESOURCE_ENV } from '../../lib/config.js';
import { Metric } from '../../lib/observability/metric-names.js';
import { DEFAULT_HANDLERS, functionId, type Synthesized, synth } from './support.js';

let s: Synthesized;
beforeAll(() => {
  s = synth({});
});

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

const ALL = DEFAULT_HANDLERS;
const propsOf = (x: Synthesized, name: HandlerName) =>
  x.template.toJSON().Resources[functionId(x, name)].Properties;

/** Representative values of a put's `$context` variables (the longest caller form: an assumed role). */
const PUT_CONTEXT: Record<string, string> = {
  '$context.requestId': 'Ab1CdEfGhIjKlMn=',
  '$context.requestTimeEpoch': '1796083200123',
  '$context.identity.sourceIp': '203.0.113.10',
  '$context.identity.userArn':
    'arn:aws:sts::123456789012:assumed-role/shardwal-producer/producer-session',
  '$context.authorizer.claims.sub': '7f3c9a2e-5b1d-4c8e-9f0a-1b2c3d4e5f60',
  '$context.httpMethod': 'POST',
  '$context.path': '/v1/shards/orders/rows',
  '$context.status': '202',
  '$context.responseLatency': '27',
  '$context.responseLength': '52',
  '$context.integrationErrorMessage': '-',
};

/** The stage's access-log format as synthesized. */
function accessLogFormat(x: Synthesized): string {
  const stage = Object.values(x.template.findResources('AWS::ApiGatewayV2::Stage'))[0]!;
  return stage.Properties.AccessLogSettings.Format as string;
}

/** Bytes of one access-log event of `format` for a put (the line and its newline). */
function accessLogBytes(format: string): number {
  const line = format.replace(/\$context\.[A-Za-z0-9_.]+/g, (name) => {
    const value = PUT_CONTEXT[name];
    if (value === undefined) throw new Error(`no representative value for ${name}`);
    return value;
  });
  JSON.parse(line);
  return Buffer.byteLength(`${line}\n`);
}

describe('Functions', () => {
  describe('logging', () => {
    it('logs JSON, drops Lambda system lines below WARN, and logs the application at INFO', () => {
      for (const name of ALL) {
        const p = propsOf(s, name);
        expect(p.LoggingConfig, name).toMatchObject({
          LogFormat: 'JSON',
          SystemLogLevel: 'WARN',
          ApplicationLogLevel: 'INFO',
        });
        expect(p.Environment.Variables.POWERTOOLS_LOG_LEVEL, name).toBe('INFO');
      }
    });

    it('raises both levels together with logLevel=DEBUG, and never adds a sample rate', () => {
      const debug = synth({ logLevel: 'debug' });
      for (const name of ALL) {
        const p = propsOf(debug, name);
        expect(p.LoggingConfig.ApplicationLogLevel).toBe('DEBUG');
        expect(p.LoggingConfig.SystemLogLevel).toBe('WARN');
        expect(p.Environment.Variables.POWERTOOLS_LOG_LEVEL).toBe('DEBUG');
        expect(p.Environment.Variables.POWERTOOLS_LOGGER_SAMPLE_RATE).toBeUndefined();
      }
    });
  });
});

describe('Api', () => {
  describe('access log', () => {
    it('writes id, time, ip, caller, request, status, latency, length and integration error, and nothing else', () => {
      expect(JSON.parse(accessLogFormat(s))).toEqual({
        id: '$context.requestId',
        time: '$context.requestTimeEpoch',
        ip: '$context.identity.sourceIp',
        caller: '$context.identity.userArn',
        request: '$context.httpMethod $context.path',
        status: '$context.status',
        ms: '$context.responseLatency',
        bytes: '$context.responseLength',
        error: '$context.integrationErrorMessage',
      });
    });

    it('names the JWT subject as the caller behind a JWT authorizer', () => {
      const jwt = accessLogFields({ kind: 'jwt', issuer: 'https://idp.example', audience: ['a'] });
      expect(jwt.caller).toBe('$context.authorizer.claims.sub');
    });

    it('costs 244 bytes per put with the values above, down from 412', () => {
      // The assumed-role ARN is a third of it; 412 was the previous format's line.
      expect(accessLogBytes(accessLogFormat(s))).toBe(244);
    });
  });
});

describe('telemetry', () => {
  describe('EMF document of a put', () => {
    it('carries the three put metrics under the service and stage dimensions only, in 322 bytes', async () => {
      vi.resetModules();
      vi.stubEnv(RESOURCE_ENV.stage, 'default');
      const { metrics } = await import('../../lib/observability/telemetry.js');
      metrics.addMetric(Metric.putBatches, MetricUnit.Count, 1);
      metrics.addMetric(Metric.putRows, MetricUnit.Count, 100);
      metrics.addMetric(Metric.putBytes, MetricUnit.Bytes, 23_456);
      const emf = metrics.serializeMetrics() as unknown as {
        _aws: { CloudWatchMetrics: { Dimensions: string[][]; Metrics: unknown[] }[] };
      };
      metrics.clearMetrics();
      const [directive] = emf._aws.CloudWatchMetrics;
      expect(directive?.Dimensions).toEqual([['service', 'stage']]);
      expect(directive?.Metrics).toHaveLength(3);
      // 13-digit timestamp, 5-digit byte count: the same size every put of this shape.
      expect(Buffer.byteLength(`${JSON.stringify(emf)}\n`)).toBe(322);
    });
  });

  describe('Powertools logger under Lambda log levels', () => {
    it("obeys Lambda's AWS_LAMBDA_LOG_LEVEL over POWERTOOLS_LOG_LEVEL and over debug sampling", () => {
      vi.stubEnv('AWS_LAMBDA_LOG_LEVEL', 'INFO');
      vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'WARN');
      vi.stubEnv('POWERTOOLS_LOGGER_SAMPLE_RATE', '1');
      vi.stubEnv('POWERTOOLS_DEV', 'true');
      const lines: string[] = [];
      for (const method of ['debug', 'info', 'warn', 'error', 'log'] as const) {
        vi.spyOn(console, method).mockImplementation((line: unknown) => {
          lines.push(String(line));
        });
      }
      const logger = new Logger({ serviceName: 'probe' });
      logger.debug('sampled?');
      logger.info('operational');
      const levels = lines.map((line) => (JSON.parse(line) as { level: string }).level);
      // WARN would have dropped the INFO line; sampling would have kept the DEBUG one.
      expect(levels).toContain('INFO');
      expect(levels).not.toContain('DEBUG');
      expect(logger.level).toBe(12);
    });
  });
});
