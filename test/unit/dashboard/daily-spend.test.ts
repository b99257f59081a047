import { describe, expect, it } from 'vitest';
import { dailySpend, niceCeiling, spendWindow } from '../../../dashboard/daily-spend.ts';

describe('credits spent per day', () => {
  const now = new Date('2026-11-24T23:59:59Z');

  it('covers whole UTC days ending with today', () => {
    expect(spendWindow(now, 30)).toEqual({ from: new Date('2026-10-26T00:00:00Z'), to: new Date('2026-11-25T00:00:00Z') });
  });

  it("adds up each day's operations and puts zero on days without charges, oldest first", () => {
    const days = dailySpend(
      [
        { day: '2026-11-24', operationId: 'getForumPost', calls: 2, credits: 6 },
        { day: '2026-11-24', operationId: 'searchForumPosts', calls: 1, credits: 25 },
        { day: '2026-11-20', operationId: 'monitorRun', calls: 1, credits: 4 },
        { day: '2026-09-01', operationId: 'getForumPost', calls: 1, credits: 3 },
      ],
      now,
      7,
    );
    expect(days).toEqual([
      { day: '2026-11-18', credits: 0 },
      { day: '2026-11-19', credits: 0 },
      { day: '2026-11-20', credits: 4 },
      { day: '2026-11-21', credits: 0 },
      { day: '2026-11-22', credits: 0 },
      { day: '2026-11-23', credits: 0 },
      { day: '2026-11-24', credits: 31 },
    ]);
  });

  it('rounds the axis up to 1, 2 or 5 times a power of ten', () => {
    expect([0, 1, 3, 20, 21, 480, 501, 9_999].map(niceCeiling)).toEqual([1, 1, 5, 20, 50, 500, 1_000, 10_000]);
  });
});
