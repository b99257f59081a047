import { defineEntity, p } from '@mikro-orm/core';

/** rate-limiter-flexible's RateLimiterPostgres row: one per account, points used in the window ending at `expire` (ms). */
export const BillingRateLimit = defineEntity({
  name: 'BillingRateLimit',
  tableName: 'billing_rate_limit',
  properties: {
    key: p.string().length(255).primary(),
    points: p.integer().default(0),
    expire: p.bigint('number').nullable(),
  },
});
