import { z } from 'zod';
import type { CreditsService } from '../adapters/billing/credits-service.ts';
import type { IdentityStore } from '../adapters/identity/identity-store.ts';
import type { OperatorRoute } from './operator-api.ts';

const WORKSPACE = '([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})';

const Money = z.strictObject({
  usdCents: z.number().int().min(0).max(100_000_000),
  credits: z.number().int().min(0).max(1_000_000_000),
  note: z.string().max(500).optional(),
});

/** A refund may take back fewer credits than asked only when it says so (and then books the dollars' share). */
const Refund = Money.extend({ partial: z.boolean().optional() });

const LedgerQuery = z.undefined();

/** Operator credit actions: purchases, refunds, the dispute pause, and the ledger. */
export function billingOperatorRoutes(credits: CreditsService, identity: IdentityStore): OperatorRoute[] {
  const known = async (workspaceId: string) => (await identity.getWorkspace(workspaceId)) !== null;
  return [
    {
      method: 'POST',
      pattern: new RegExp(`^/operator/workspaces/${WORKSPACE}/purchases$`),
      input: Money,
      run: async (input: z.infer<typeof Money>, [workspaceId]) =>
        (await known(workspaceId)) ? { status: 201, data: await credits.recordPurchase(workspaceId, input) } : null,
    },
    {
      method: 'POST',
      pattern: new RegExp(`^/operator/workspaces/${WORKSPACE}/refunds$`),
      input: Refund,
      run: async (input: z.infer<typeof Refund>, [workspaceId]) =>
        (await known(workspaceId)) ? { status: 201, data: await credits.recordRefund(workspaceId, input) } : null,
    },
    {
      method: 'POST',
      pattern: new RegExp(`^/operator/workspaces/${WORKSPACE}/(pause|resume)$`),
      input: z.undefined().or(z.strictObject({})),
      run: async (_input: unknown, [workspaceId, action]) =>
        (await known(workspaceId)) ? { data: await credits.setSpendingPaused(workspaceId, action === 'pause') } : null,
    },
    {
      method: 'GET',
      pattern: new RegExp(`^/operator/workspaces/${WORKSPACE}/ledger$`),
      input: LedgerQuery,
      run: async (_input: unknown, [workspaceId]) =>
        (await known(workspaceId)) ? { data: await credits.ledger(workspaceId, { limit: 1000 }) } : null,
    },
    {
      method: 'GET',
      pattern: new RegExp(`^/operator/workspaces/${WORKSPACE}/usage$`),
      input: LedgerQuery,
      run: async (_input: unknown, [workspaceId]) => {
        const usage = await credits.usage(workspaceId);
        return usage ? { data: usage } : null;
      },
    },
  ];
}
