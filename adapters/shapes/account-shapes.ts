import { z } from 'zod';

const TIER = z.enum(['free', 't1', 't2', 't3']).describe('`free`, `t1` (from $5 lifetime purchases), `t2` (from $100), `t3` (from $500).');

export const UsageShape = z
  .object({
    balance: z.int().min(0).describe("Credits held: what is left of this month's free grant plus everything bought."),
    reserved: z.int().min(0).describe("Credits held by this account's calls in flight."),
    available: z.int().min(0).describe('Balance minus reserved.'),
    freeGrant: z
      .object({
        granted: z.int().min(0).describe('Credits granted this month.'),
        remaining: z.int().min(0).describe("What is left of this month's grant."),
        resetsAt: z.iso.datetime().describe("When this month's free credits expire and next month's arrive."),
      })
      .meta({ id: 'FreeGrant' })
      .nullable()
      .describe("This month's free grant; null for a workspace that does not receive it (each person's oldest workspace does)."),
    tier: TIER,
    spendingPaused: z.boolean().describe('While true (a refund or payment dispute is being resolved), billed calls return 402.'),
  })
  .meta({ id: 'Usage' })
  .describe('Credit balance of the account.');

export const LimitsShape = z
  .object({
    tier: TIER,
    rateLimitPerMinute: z.int().min(1).describe('Weighted requests per minute for the account.'),
    maxMonitors: z.int().min(0).describe('Most monitors the account may have.'),
    maxWebhooks: z.int().min(0).describe('Most webhooks the account may have.'),
    hourlySchedules: z.boolean().describe('Whether monitors may run hourly; daily and weekly are on every tier.'),
  })
  .meta({ id: 'Limits' })
  .describe("Ceilings of the account's tier.");

export type Usage = z.infer<typeof UsageShape>;
export type Limits = z.infer<typeof LimitsShape>;

