import { describe, expect, it } from 'vitest';
import {
  HOLD_BACK,
  holdBackSeconds,
  INGEST_MAX_RECEIVE_COUNT,
  receivesToHold,
} from '../../lib/sqs/hold-back.js';

describe('holdBackSeconds', () => {
  it('doubles from 10 s after each failed receive, up to 15 minutes', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9, 50, 10_000].map(holdBackSeconds)).toEqual([
      10, 20, 40, 80, 160, 320, 640, 900, 900, 900, 900,
    ]);
  });

  it('treats a missing or nonsense receive count as the first', () => {
    expect(holdBackSeconds(0)).toBe(10);
    expect(holdBackSeconds(-3)).toBe(10);
  });
});

describe('receivesToHold', () => {
  it('counts the receives whose hold-backs add up to the hold', () => {
    expect(receivesToHold(10)).toBe(1);
    expect(receivesToHold(11)).toBe(2);
    expect(receivesToHold(1270)).toBe(7);
    expect(receivesToHold(1271)).toBe(8);
  });

  it('refuses a hold that SQS cannot express in 1000 receives', () => {
    expect(() => receivesToHold(1000 * HOLD_BACK.maxSeconds)).toThrow(
      /more than SQS's 1000 receives/,
    );
  });
});

describe('INGEST_MAX_RECEIVE_COUNT', () => {
  it('keeps a held-back message a week before the redrive policy takes it, within retention', () => {
    let waited = 0;
    for (let n = 1; n < INGEST_MAX_RECEIVE_COUNT; n++) waited += holdBackSeconds(n);
    expect(waited).toBeLessThan(HOLD_BACK.holdForSeconds);
    expect(waited + holdBackSeconds(INGEST_MAX_RECEIVE_COUNT)).toBeGreaterThanOrEqual(
      HOLD_BACK.holdForSeconds,
    );
    expect(INGEST_MAX_RECEIVE_COUNT).toBe(678);
    expect(HOLD_BACK.retentionSeconds).toBe(2 * HOLD_BACK.holdForSeconds);
  });
});
