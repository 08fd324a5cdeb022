import { describe, expect, it } from 'vitest';
import { perHour } from '../../bench/cost/deployment.js';
import { itemClass } from '../../bench/cost/item-lifetimes.js';
import { captureOutput, emfMetrics, emptyCapture } from '../../bench/cost/log-capture.js';
import { accessLogBytes, platformLogBytes } from '../../bench/cost/platform-logs.js';
import { VirtualClock } from '../../bench/cost/virtual-clock.js';
import { InternalError } from '../../lib/errors.js';

describe('cost bench support', () => {
  describe('VirtualClock', () => {
    describe('sleep', () => {
      it('runs the work due before the wake-up in time order, each at its instant', async () => {
        const clock = new VirtualClock(1_000);
        const seen: [string, number][] = [];
        clock.schedule(1_500, async () => void seen.push(['b', clock.now()]));
        clock.schedule(1_200, async () => void seen.push(['a', clock.now()]));
        clock.schedule(2_500, async () => void seen.push(['c', clock.now()]));
        await clock.sleep(1_000);
        expect(seen).toEqual([
          ['a', 1_200],
          ['b', 1_500],
        ]);
        expect(clock.now()).toBe(2_000);
        expect(clock.pending).toBe(1);
      });

      it('keeps the order of work scheduled at the same instant', async () => {
        const clock = new VirtualClock(0);
        const seen: number[] = [];
        for (const n of [1, 2, 3]) clock.schedule(10, async () => void seen.push(n));
        await clock.runUntil(11);
        expect(seen).toEqual([1, 2, 3]);
      });
    });
  });

  describe('captureOutput', () => {
    it('counts bytes, lines and EMF metrics written to stdout and stderr, and lets nothing through', async () => {
      const capture = emptyCapture();
      const emf = JSON.stringify({
        _aws: {
          Timestamp: 1,
          CloudWatchMetrics: [
            { Namespace: 'ns', Dimensions: [['service']], Metrics: [{ Name: 'A' }, { Name: 'B' }] },
          ],
        },
        service: 'x',
        A: 1,
        B: 2,
      });
      await captureOutput(capture, async () => {
        process.stdout.write('{"level":"INFO"}\n');
        process.stderr.write(`${emf}\n`);
      });
      expect(capture.events).toBe(2);
      expect(capture.bytes).toBe(17 + emf.length + 1);
      expect(capture.emfBytes).toBe(emf.length + 1);
      expect([...capture.metrics].sort()).toEqual(['ns/A{service=x}', 'ns/B{service=x}']);
    });
  });

  describe('emfMetrics', () => {
    it('names one metric per dimension set with its values', () => {
      const line = JSON.stringify({
        _aws: {
          CloudWatchMetrics: [
            {
              Namespace: 'ns',
              Dimensions: [['stage', 'service'], ['service']],
              Metrics: [{ Name: 'M' }],
            },
          ],
        },
        service: 's',
        stage: 'prod',
      });
      expect(emfMetrics(line).sort()).toEqual(['ns/M{service=s,stage=prod}', 'ns/M{service=s}']);
      expect(emfMetrics('not json')).toEqual([]);
    });
  });

  describe('perHour', () => {
    it('reads rate() schedule expressions', () => {
      expect(perHour('rate(1 minute)')).toBe(60);
      expect(perHour('rate(15 minutes)')).toBe(4);
      expect(perHour('rate(1 hour)')).toBe(1);
      expect(perHour('rate(2 days)')).toBeCloseTo(1 / 48, 12);
      expect(() => perHour('cron(0 * * * ? *)')).toThrow(InternalError);
    });
  });

  describe('itemClass', () => {
    it('tells batches, shard records and idempotency records apart by key', () => {
      expect(itemClass('shard#a', 'batch#00000000000000000001')).toBe('batch');
      expect(itemClass('shard#a', 'batch#00000000000000000001#0001')).toBe('batch');
      expect(itemClass('shard#a', 'meta')).toBe('shard-record');
      expect(itemClass('idem#a#k', 'idem')).toBe('idempotency');
      expect(itemClass('x', 'y')).toBe('other');
    });
  });

  describe('platform and access logs', () => {
    it('models START, END and REPORT lines and fills an access-log format', () => {
      expect(platformLogBytes(512)).toBeGreaterThan(200);
      expect(platformLogBytes(10_240) - platformLogBytes(512)).toBe(2);
      expect(accessLogBytes('{"s":"$context.status","x":"$context.unknownThing"}')).toBe(
        Buffer.byteLength('{"s":"202","x":"-"}\n'),
      );
      expect(accessLogBytes(undefined)).toBe(0);
    });

    it('counts no platform line when the system log level is above INFO', () => {
      expect(platformLogBytes(512, 'WARN')).toBe(0);
      expect(platformLogBytes(512, 'INFO')).toBe(platformLogBytes(512));
    });
  });
});
