import { z } from 'zod';
import { LimitsShape, UsageShape } from '../../adapters/shapes/account-shapes.ts';
import { limits, usage } from '../../resolvers/account.ts';
import { defineOperation, FREE } from './operation.ts';

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
