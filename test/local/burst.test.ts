import { describe, expect, it } from 'vitest';
import { runBurst } from '../../bench/burst.js';

describe('the local stack under a burst on one shard (child process)', () => {
  it('answers 400 concurrent puts past the buffer limit with fast 429s and no 503', async () => {
    // The burst: 400 puts of 8 KB against a 200 KB buffer (bench/burst.ts).
    const report = await runBurst({ puts: 400, putBytes: 8192, maxBufferedBytes: 204_800 });
    expect(report.byStatus['503'] ?? 0, JSON.stringify(report.byStatus)).toBe(0);
    expect(Object.keys(report.byStatus).sort()).toEqual(['202', '429']);
    expect(report.byStatus['429']).toBeGreaterThan(300);
    // Every refusal comes well within the put deadline (5 s): the budget below leaves room
    // for a loaded CI machine; before admission the slowest took over 15 s.
    expect(report.slowestMs['429'], JSON.stringify(report.slowestMs)).toBeLessThan(
      report.putDeadlineMs,
    );
  }, 60_000);
});
