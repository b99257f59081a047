import { createHash } from 'node:crypto';

/**
 * The tier table: what each tier unlocks and what lifetime purchases (net of refunds) reach it.
 * Tiers depend on net purchases alone, so spending and time can never lower a tier; a refund can,
 * because it lowers net purchases (otherwise buying $500 and refunding it would keep t3 for ever).
 */
export const TIER_NAMES = ['free', 't1', 't2', 't3'] as const;
export type Tier = (typeof TIER_NAMES)[number];

/** The spec's Limits object minus `tier`. */
export interface TierLimits {
  rateLimitPerMinute: number;
  maxMonitors: number;
  maxWebhooks: number;
  hourlySchedules: boolean;
}

export interface TierDefinition extends TierLimits {
  /** Lifetime purchases net of refunds, in US cents, from which the tier applies. */
  minNetPurchaseCents: number;
}

export type TierTable = Readonly<Record<Tier, Readonly<TierDefinition>>>;

/**
 * Defaults. Thresholds are the spec's ($5, $100, $500). The ceilings are ours (the spec leaves them open):
 * the free tier can try every feature at a pace one person reading results needs; hourly monitors start at t1,
 * because an hourly schedule spends credits 24 times a day and should follow a purchase.
 */
export const DEFAULT_TIERS: TierTable = {
  free: { minNetPurchaseCents: 0, rateLimitPerMinute: 60, maxMonitors: 3, maxWebhooks: 1, hourlySchedules: false },
  t1: { minNetPurchaseCents: 500, rateLimitPerMinute: 300, maxMonitors: 20, maxWebhooks: 5, hourlySchedules: true },
  t2: { minNetPurchaseCents: 10_000, rateLimitPerMinute: 1_200, maxMonitors: 100, maxWebhooks: 20, hourlySchedules: true },
  t3: { minNetPurchaseCents: 50_000, rateLimitPerMinute: 3_000, maxMonitors: 500, maxWebhooks: 50, hourlySchedules: true },
};

export type TierOverrides = Partial<Record<Tier, Partial<TierDefinition>>>;

/** The defaults with operator overrides applied; refuses a table whose tiers are out of order. */
export function createTierTable(overrides: TierOverrides = {}): TierTable {
  const table = Object.fromEntries(
    TIER_NAMES.map((tier) => [tier, { ...DEFAULT_TIERS[tier], ...overrides[tier] }]),
  ) as Record<Tier, TierDefinition>;
  if (table.free.minNetPurchaseCents !== 0) throw new RangeError('The free tier must start at 0 cents.');
  for (let i = 1; i < TIER_NAMES.length; i++) {
    const lower = table[TIER_NAMES[i - 1]];
    const upper = table[TIER_NAMES[i]];
    if (!(upper.minNetPurchaseCents > lower.minNetPurchaseCents)) {
      throw new RangeError(`Tier ${TIER_NAMES[i]} must start above tier ${TIER_NAMES[i - 1]}.`);
    }
  }
  for (const tier of TIER_NAMES) {
    const { rateLimitPerMinute, maxMonitors, maxWebhooks } = table[tier];
    if (!Number.isInteger(rateLimitPerMinute) || rateLimitPerMinute <= 0) {
      throw new RangeError(`Tier ${tier}: rateLimitPerMinute must be a positive integer.`);
    }
    if (!Number.isInteger(maxMonitors) || maxMonitors < 0 || !Number.isInteger(maxWebhooks) || maxWebhooks < 0) {
      throw new RangeError(`Tier ${tier}: maxMonitors and maxWebhooks must be integers ≥ 0.`);
    }
  }
  return table;
}

/** The highest tier whose threshold the net purchases reach. */
export function tierForNetPurchases(table: TierTable, netPurchaseCents: number): Tier {
  let reached: Tier = 'free';
  for (const tier of TIER_NAMES) {
    if (netPurchaseCents >= table[tier].minNetPurchaseCents) reached = tier;
  }
  return reached;
}

/**
 * A short fingerprint of the whole table (every tier, every field, in a fixed order), so instances on one database can
 * tell whether they run the same SVC_TIERS without exchanging the table.
 */
export function tierTableFingerprint(table: TierTable): string {
  const fields = TIER_NAMES.map((tier) => {
    const { minNetPurchaseCents, rateLimitPerMinute, maxMonitors, maxWebhooks, hourlySchedules } = table[tier];
    return [tier, minNetPurchaseCents, rateLimitPerMinute, maxMonitors, maxWebhooks, hourlySchedules];
  });
  return createHash('sha256').update(JSON.stringify(fields)).digest('hex').slice(0, 16);
}
