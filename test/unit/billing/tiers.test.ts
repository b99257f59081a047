import { describe, expect, it } from 'vitest';
import { DEFAULT_TIERS, createTierTable, tierForNetPurchases, tierTableFingerprint } from '../../../adapters/billing/tiers.ts';

describe('tier table', () => {
  it('reaches each tier exactly at the spec thresholds ($5, $100, $500 net)', () => {
    const cases: Array<[number, string]> = [
      [0, 'free'], [499, 'free'], [500, 't1'], [9_999, 't1'], [10_000, 't2'], [49_999, 't2'], [50_000, 't3'], [10_000_000, 't3'],
    ];
    for (const [cents, tier] of cases) expect(tierForNetPurchases(DEFAULT_TIERS, cents)).toBe(tier);
  });

  it('raises every ceiling with the tier and keeps hourly schedules for paying tiers', () => {
    const order = ['free', 't1', 't2', 't3'] as const;
    for (let i = 1; i < order.length; i++) {
      const [lower, upper] = [DEFAULT_TIERS[order[i - 1]], DEFAULT_TIERS[order[i]]];
      expect(upper.rateLimitPerMinute).toBeGreaterThan(lower.rateLimitPerMinute);
      expect(upper.maxMonitors).toBeGreaterThan(lower.maxMonitors);
      expect(upper.maxWebhooks).toBeGreaterThan(lower.maxWebhooks);
    }
    expect(order.map((t) => DEFAULT_TIERS[t].hourlySchedules)).toEqual([false, true, true, true]);
  });

  it('applies overrides and refuses tables out of order or with a zero rate limit', () => {
    const table = createTierTable({ t1: { minNetPurchaseCents: 1_000, maxMonitors: 7 } });
    expect(table.t1).toMatchObject({ minNetPurchaseCents: 1_000, maxMonitors: 7, rateLimitPerMinute: 300 });
    expect(tierForNetPurchases(table, 999)).toBe('free');
    expect(() => createTierTable({ t2: { minNetPurchaseCents: 400 } })).toThrow(RangeError);
    expect(() => createTierTable({ free: { rateLimitPerMinute: 0 } })).toThrow(RangeError);
  });

  it('fingerprints the whole table: equal tables agree, any field of any tier changes it', () => {
    expect(tierTableFingerprint(createTierTable({}))).toBe(tierTableFingerprint(DEFAULT_TIERS));
    expect(tierTableFingerprint(createTierTable({ free: { rateLimitPerMinute: 60 } }))).toBe(tierTableFingerprint(DEFAULT_TIERS));
    const changed = [
      createTierTable({ free: { rateLimitPerMinute: 61 } }),
      createTierTable({ t3: { maxWebhooks: 51 } }),
      createTierTable({ t1: { hourlySchedules: false } }),
      createTierTable({ t2: { minNetPurchaseCents: 10_001 } }),
    ].map(tierTableFingerprint);
    expect(new Set([tierTableFingerprint(DEFAULT_TIERS), ...changed]).size).toBe(5);
  });
});
