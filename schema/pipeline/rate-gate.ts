import type { CreditsService } from '../../adapters/billing/credits-service.ts';
import type { Tier } from '../../adapters/billing/tiers.ts';
import { ServiceError } from '../../core/error-catalogue.ts';
import type { RateGate } from '../../core/service-deps.ts';

export interface WeightedLimiter {
  consume(workspaceId: string, tier: Tier, weight: number): Promise<{ ok: true } | { ok: false; retryAfterSeconds: number } | { ok: false; ceiling: number }>;
}

/** How long a workspace's tier is reused before it is read again: it changes only on a purchase or refund. */
const TIER_TTL_MS = 5_000;

/** The pipeline's rate-limit hook: per account (workspace), weighted, ceiling from the account's tier. */
export function createRateGate(limiter: WeightedLimiter, credits: CreditsService, now: () => number = Date.now): RateGate {
  const tiers = new Map<string, { tier: Tier; until: number; reading?: Promise<Tier> }>();
  const read = (workspaceId: string): Promise<Tier> =>
    credits.limits(workspaceId).then((limits) => {
      const tier = limits?.tier ?? 'free';
      if (tiers.size > 10_000) tiers.clear();
      tiers.set(workspaceId, { tier, until: now() + TIER_TTL_MS });
      return tier;
    });
  // A known tier answers at once; past its lifetime it is read again behind the call (a few seconds late is
  // harmless), so no call, and no refusal, waits on the database for it.
  const tierOf = async (workspaceId: string): Promise<Tier> => {
    const cached = tiers.get(workspaceId);
    if (!cached) return read(workspaceId);
    if (cached.until <= now() && !cached.reading) {
      cached.reading = read(workspaceId).catch(() => {
        cached.reading = undefined;
        return cached.tier;
      });
    }
    return cached.tier;
  };
  return {
    tierOf: (principal) => tierOf(principal.workspaceId),
    async consume(principal, weight) {
      const outcome = await limiter.consume(principal.workspaceId, await tierOf(principal.workspaceId), weight);
      if (!outcome.ok && 'ceiling' in outcome) {
        throw new ServiceError('invalid_request', {
          message: `This request weighs ${weight}, more than the ${outcome.ceiling} per minute the account's tier allows: split it into smaller requests.`,
          details: { field: 'query', weight, rateLimitPerMinute: outcome.ceiling },
        });
      }
      if (!outcome.ok) {
        throw new ServiceError('rate_limited', {
          details: { reason: 'rate_limited', weight, retryAfterSeconds: outcome.retryAfterSeconds },
          headers: { 'retry-after': String(outcome.retryAfterSeconds) },
        });
      }
    },
  };
}
