import { describe, expect, it } from 'vitest';
import { monthLabel, monthStart, nextMonthStart } from '../../../adapters/billing/billing-month.ts';

describe('grant periods (UTC calendar months)', () => {
  it('starts at UTC midnight on the first, whatever the instant within the month', () => {
    expect(monthStart(new Date('2026-03-31T23:59:59.999Z')).toISOString()).toBe('2026-03-01T00:00:00.000Z');
    expect(nextMonthStart(new Date('2026-03-01T00:00:00.000Z')).toISOString()).toBe('2026-04-01T00:00:00.000Z');
  });

  it('rolls over the year', () => {
    expect(nextMonthStart(new Date('2026-12-15T12:00:00Z')).toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(monthLabel(new Date('2026-12-15T12:00:00Z'))).toBe('2026-12');
  });
});
