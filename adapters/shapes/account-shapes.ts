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


export const UsageChargeShape = z
  .object({
    requestId: z.string().describe("The charged call's request id (`meta.requestId`, `x-request-id`); a monitor run's id for a run's charge."),
    operationId: z.string().describe('The operation charged (`getForumPost`, …), or `monitorRun` for a monitor run.'),
    credits: z.int().min(1).describe('Credits charged for this operation by this call.'),
    chargedAt: z.iso.datetime().describe('When the charge was settled.'),
    day: z.iso.date().describe('The UTC day of `chargedAt`.'),
  })
  .meta({ id: 'UsageCharge' })
  .describe('One charge of the usage ledger: what one call (or monitor run) was charged for one operation.');

export const UsageTotalShape = z
  .object({
    day: z.iso.date().describe('UTC day.'),
    operationId: z.string().describe('The operation, or `monitorRun`.'),
    calls: z.int().min(1).describe('Charged calls of this operation that day.'),
    credits: z.int().min(1).describe('Credits they were charged together.'),
  })
  .meta({ id: 'UsageTotal' })
  .describe('Charges of one operation on one UTC day, added up.');

export type UsageCharge = z.infer<typeof UsageChargeShape>;
export type UsageTotal = z.infer<typeof UsageTotalShape>;
