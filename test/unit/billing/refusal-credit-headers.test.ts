import { describe, expect, it, vi } from 'vitest';
import { ServiceError } from '../../../core/error-catalogue.ts';
import type { RequestContext } from '../../../core/request-context.ts';
import { remainingAfterRefusal } from '../../../schema/pipeline/credit-headers.ts';

/** The balance a refusal of a known key reports in `x-credits-remaining` (docs/api-conventions.md "Credits headers"). */
function contextWith(lastKnown: number | undefined, stored: () => Promise<number>) {
  const billing = { lastKnownRemaining: vi.fn(() => lastKnown), remaining: vi.fn(stored) };
  const ctx = { principal: { workspaceId: 'ws_1', keyId: 'key_1' }, deps: { billing } } as unknown as RequestContext;
  return { ctx, billing };
}

const databaseDown = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

describe('x-credits-remaining on a refusal', () => {
  it.each([
    ['the database is unreachable (503 not_ready)', databaseDown],
    ['a not_ready already mapped', new ServiceError('not_ready')],
    ['the rate limit', new ServiceError('rate_limited')],
  ])('reports the balance this instance last learned when %s, without asking the database', async (_, error) => {
    const { ctx, billing } = contextWith(120, () => Promise.reject(databaseDown));
    expect(await remainingAfterRefusal(ctx, error)).toBe(120);
    expect(billing.remaining).not.toHaveBeenCalled();
  });

  it('reports nothing during an outage when this instance never learned the balance', async () => {
    const { ctx, billing } = contextWith(undefined, () => Promise.reject(databaseDown));
    expect(await remainingAfterRefusal(ctx, databaseDown)).toBeUndefined();
    expect(billing.remaining).not.toHaveBeenCalled();
  });

  it('asks the billing gate for any other refusal', async () => {
    const { ctx } = contextWith(120, () => Promise.resolve(95));
    expect(await remainingAfterRefusal(ctx, new ServiceError('invalid_request'))).toBe(95);
  });

  it('reports nothing for a caller that was never authenticated', async () => {
    const { ctx } = contextWith(120, () => Promise.resolve(95));
    expect(await remainingAfterRefusal({ ...ctx, principal: undefined }, databaseDown)).toBeUndefined();
  });
});
