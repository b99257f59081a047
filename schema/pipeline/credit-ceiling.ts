import type { z } from 'zod';
import type { OperationSpec } from '../catalogue/operation.ts';
import { ServiceError } from '../../core/error-catalogue.ts';
import type { CallOptions } from '../../core/call-options.ts';

export interface EstimatedField {
  op: OperationSpec;
  args: Record<string, unknown>;
}

/** What a dry run reports: what the call would cost at least and at most, and what it weighs against the rate limit. */
export interface Estimate {
  minimumCredits: number;
  worstCaseCredits: number;
  rateLimitWeight: number;
}

export function estimateOf(fields: readonly { op: OperationSpec }[], worstCase: number): Estimate {
  return {
    minimumCredits: fields.reduce((sum, { op }) => sum + op.billing.minimumCredits, 0),
    worstCaseCredits: worstCase,
    rateLimitWeight: fields.reduce((sum, { op }) => sum + op.billing.rateLimitWeight, 0),
  };
}

/** A page served smaller than asked so that its worst case fits the ceiling. */
export interface SmallerPage {
  limit: number;
  limitAsked: number;
  worstCaseCredits: number;
}

/**
 * The largest `limit` whose worst case (`worstCaseAt`, the request's estimate at that limit) fits `maxCredits`, for a
 * single paginated operation that takes a `limit` and whose worst case at the limit asked is over it; undefined when
 * the operation cannot be served smaller (no `limit`, or even one item does not fit). A worst case never falls as the
 * limit grows, so the limit is found by halving: each probe plans the whole request again.
 */
export function smallerPage(field: EstimatedField, maxCredits: number, worstCaseAt: (limit: number) => number): SmallerPage | undefined {
  const { op, args } = field;
  const limitShape = (op.input.shape as Record<string, z.ZodType>).limit;
  if (!op.paginated || !limitShape) return undefined;
  const asked = limitShape.safeParse(args.limit);
  if (!asked.success || typeof asked.data !== 'number') return undefined;
  // `fits` fits the ceiling (0: none found yet), `over` does not (the limit asked, to begin with).
  let fits = { limit: 0, worstCase: 0 };
  let over = asked.data;
  while (over - fits.limit > 1) {
    const limit = Math.floor((fits.limit + over) / 2);
    const worstCase = worstCaseAt(limit);
    if (worstCase <= maxCredits) fits = { limit, worstCase };
    else over = limit;
  }
  return fits.limit >= 1 ? { limit: fits.limit, limitAsked: asked.data, worstCaseCredits: fits.worstCase } : undefined;
}

/** The 400 of a call whose worst case (or, after it ran, whose price) exceeds the client's ceiling; nothing charged. */
export function ceilingRefusal(ceiling: NonNullable<CallOptions['maxCredits']>, credits: number, when: 'worst_case' | 'price'): ServiceError {
  const what = when === 'worst_case' ? `could cost up to ${credits} credits` : `came to ${credits} credits`;
  return new ServiceError('invalid_request', {
    message: `This call ${what}, more than '${ceiling.field}' (${ceiling.credits}) allows: nothing was charged. Raise the ceiling, or ask for less (a smaller limit, fewer ids).`,
    details: { field: ceiling.field, reason: 'max_credits_exceeded', maxCredits: ceiling.credits, [when === 'worst_case' ? 'worstCaseCredits' : 'price']: credits },
  });
}
