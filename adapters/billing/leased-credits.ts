import type { CreditLeases } from './credit-leases.ts';
import type { CreditsService } from './credits-service.ts';

/**
 * The credits service as reads and operator actions see it while calls are billed on leases: usage and the ledger
 * first book every instance's settled charges (exact books), a pause and a refund first have every unused slice
 * handed back, so they take effect on every instance before they answer; a purchase or refund is in this instance's
 * next `x-credits-remaining`. Bounds in docs/billing.md ("Leases").
 */
export function withLeases(credits: CreditsService, leases: CreditLeases): CreditsService {
  const usage: CreditsService['usage'] = async (workspaceId, now) => {
    await leases.exactBooks(workspaceId);
    return credits.usage(workspaceId, now);
  };
  return {
    ...credits,
    usage,
    async ledger(workspaceId, options) {
      await leases.exactBooks(workspaceId);
      return credits.ledger(workspaceId, options);
    },
    async recordPurchase(workspaceId, purchase) {
      await credits.recordPurchase(workspaceId, purchase);
      leases.forget(workspaceId);
      return (await usage(workspaceId))!;
    },
    async recordRefund(workspaceId, refund) {
      // No lease grows while the refund runs: it takes back what the instances handed back, not only what was free.
      const booked = await leases.frozen(workspaceId, () => credits.recordRefund(workspaceId, refund));
      leases.forget(workspaceId);
      return { ...(await usage(workspaceId))!, refund: booked.refund };
    },
    async setSpendingPaused(workspaceId, paused) {
      await credits.setSpendingPaused(workspaceId, paused);
      if (paused) await leases.recallAll(workspaceId);
      return (await usage(workspaceId))!;
    },
  };
}
