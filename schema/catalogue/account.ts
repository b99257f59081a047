import { z } from 'zod';
import { LimitsShape, UsageChargeShape, UsageShape, UsageTotalShape } from '../../adapters/shapes/account-shapes.ts';
import { limits, usage } from '../../resolvers/account.ts';
import { MAX_LEDGER_DAYS, usageLedger } from '../../resolvers/usage-ledger.ts';
import { defineOperation, FREE } from './operation.ts';
import { page } from './payload.ts';

export const getUsage = defineOperation({
  operationId: 'getUsage',
  description: "The account's credit balance, credits held by calls in flight, free grant, tier and spending pause. Free; any valid key.",
  graphql: { kind: 'query', field: 'usage' },
  rest: { method: 'GET', path: '/v1/usage' },
  tool: 'get_usage',
  authentication: 'key',
  scopes: [],
  billing: FREE,
  input: z.object({}),
  output: UsageShape,
  resolve: (_args, ctx) => usage(ctx),
  tag: 'Account',
  errorStatuses: [400, 401, 402, 403, 404, 429, 500],
  example: {},
});

export const getLimits = defineOperation({
  operationId: 'getLimits',
  description: "The ceilings of the account's tier: rate limit per minute, monitors, webhooks, hourly schedules. Free; any valid key.",
  graphql: { kind: 'query', field: 'limits' },
  rest: { method: 'GET', path: '/v1/limits' },
  tool: 'get_limits',
  authentication: 'key',
  scopes: [],
  billing: FREE,
  input: z.object({}),
  output: LimitsShape,
  resolve: (_args, ctx) => limits(ctx),
  tag: 'Account',
  errorStatuses: [400, 401, 402, 403, 429, 500],
  example: {},
});

const DAY = z.iso.date();

export const getUsageLedger = defineOperation({
  operationId: 'getUsageLedger',
  description: `The account's usage ledger: every charge (request id, operation, credits, when), newest first, with the totals by UTC day and operation over the range in meta.totals. Free.`,
  graphql: { kind: 'query', field: 'usageLedger' },
  rest: { method: 'GET', path: '/v1/usage/ledger' },
  tool: 'get_usage_ledger',
  authentication: 'key',
  scopes: ['usage:read'],
  billing: FREE,
  input: z.object({
    from: DAY.optional().describe(`First UTC day (YYYY-MM-DD), included; default: 29 days before \`to\`. A range spans at most ${MAX_LEDGER_DAYS} days.`),
    to: DAY.optional().describe('Last UTC day (YYYY-MM-DD), included; default: today.'),
    operationId: z.string().regex(/^[A-Za-z]{1,64}$/, 'an operation id').optional().describe('Only the charges of this operation (`getForumPost`, `monitorRun`, …).'),
    limit: z.int().min(1).max(100).default(25).describe('Charges in this page, 1 to 100.'),
    cursor: z.string().min(1).max(4096).optional().describe('`meta.nextCursor` of the previous page, unchanged.'),
  }),
  output: z.array(UsageChargeShape),
  result: page({ totals: z.array(UsageTotalShape).describe('Charges by UTC day (newest first) and operation over the whole range, every page alike.') }),
  resolve: usageLedger,
  paginated: true,
  tag: 'Account',
  errorStatuses: [400, 401, 402, 403, 429, 500],
  example: {},
});
