import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { metrics } from '../../lib/observability/telemetry.js';
import { wrapHandler } from '../../lib/runtime/wrap.js';
import { lambdaContext } from '../support/lambda-context.js';

afterEach(() => {
  vi.restoreAllMocks();
  metrics.clearMetrics();
});

describe('wrapHandler', () => {
  describe('at the end of an invocation', () => {
    it('publishes the metrics the handler stored', async () => {
      const publish = vi.spyOn(metrics, 'publishStoredMetrics').mockImplementation(() => metrics);
      const handler = wrapHandler(async () => {
        metrics.addMetric('WrapTest', MetricUnit.Count, 1);
        return 'ok';
      });
      await expect(handler({}, lambdaContext())).resolves.toBe('ok');
      expect(publish).toHaveBeenCalledTimes(1);
    });

    it('publishes them when the handler throws too', async () => {
      const publish = vi.spyOn(metrics, 'publishStoredMetrics').mockImplementation(() => metrics);
      const handler = wrapHandler(async () => {
        metrics.addMetric('WrapTest', MetricUnit.Count, 1);
        throw new Error('boom');
      });
      await expect(handler({}, lambdaContext())).rejects.toThrow('boom');
      expect(publish).toHaveBeenCalledTimes(1);
    });

    it('publishes nothing, and so logs no empty-metrics warning, when the handler stored none', async () => {
      const publish = vi.spyOn(metrics, 'publishStoredMetrics');
      const handler = wrapHandler(async () => 'repeat');
      await expect(handler({}, lambdaContext())).resolves.toBe('repeat');
      expect(publish).not.toHaveBeenCalled();
    });
  });
});
