import type { GraphQLResolveInfo } from 'graphql';
import type { UsageCharge, UsageTotal } from '../adapters/shapes/account-shapes.ts';
import type { UsageKey } from '../adapters/usage/usage-charges.ts';
import { ServiceError } from '../core/error-catalogue.ts';
import { workspaceOf, type RequestContext } from '../core/request-context.ts';
import type { Page } from '../core/page.ts';
import { cursorPage } from './paging.ts';

const DAY_MS = 86_400_000;
/** Days a range may span: a quarter, so the totals of one page stay small. */
export const MAX_LEDGER_DAYS = 92;
const DEFAULT_DAYS = 30;

export interface UsageLedgerArgs {
  from?: string;
  to?: string;
  operationId?: string;
  limit: number;
  cursor?: string;
}

function invalid(field: string, message: string): ServiceError {
  return new ServiceError('invalid_request', { message, details: { field } });
}

/**
 * The account's charges, newest first, with the totals by UTC day and operation over the whole range. `from` and
 * `to` are UTC days, both included; by default the last 30 days up to today.
 */
export async function usageLedger(args: UsageLedgerArgs, ctx: RequestContext, info: GraphQLResolveInfo): Promise<Page<UsageCharge> & { totals: UsageTotal[] }> {
  const today = Date.parse(ctx.now().toISOString().slice(0, 10));
  const to = args.to ? Date.parse(args.to) : today;
  const from = args.from ? Date.parse(args.from) : Math.min(to, today) - (DEFAULT_DAYS - 1) * DAY_MS;
  if (from > to) throw invalid('from', '`from` is after `to`.');
  if ((to - from) / DAY_MS + 1 > MAX_LEDGER_DAYS) throw invalid('from', `A range spans at most ${MAX_LEDGER_DAYS} days.`);
  const range = { workspaceId: workspaceOf(ctx), from: new Date(from), to: new Date(to + DAY_MS), operationId: args.operationId };
  const page = await cursorPage<UsageCharge, UsageKey>(ctx, info, args, (after) => ctx.deps.usage.page(range, args.limit, after));
  return { ...page, totals: await ctx.deps.usage.totals(range) };
}
