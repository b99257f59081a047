/** How many scheduled attempts one instance runs at once: in all, to one webhook, and for one workspace. */
export interface SlotLimits {
  total: number;
  perWebhook: number;
  perWorkspace: number;
}

/**
 * A hanging receiver holds at most `perWebhook` slots for up to an attempt's timeout, an account with many webhooks
 * at most `perWorkspace`: every other account's due deliveries keep the rest.
 */
export const DELIVERY_SLOTS: SlotLimits = { total: 16, perWebhook: 2, perWorkspace: 4 };

/**
 * How many workspaces the claim remembers in the order they were last served. Any it has forgotten were served before
 * all of these, so forgetting keeps the order; a few times the slots is plenty to order those competing for them.
 */
const REMEMBERED_WORKSPACES = 64;

export interface SlotHolder {
  webhook_id: string;
  workspace_id: string;
}

/** The scheduled attempts this instance has in flight, counted per webhook and per workspace. */
export function createDeliverySlots(limits: SlotLimits) {
  const byWebhook = new Map<string, number>();
  const byWorkspace = new Map<string, number>();
  // Insertion order is serving order: a workspace served again moves to the end.
  const served = new Set<string>();
  let inFlight = 0;
  const full = (counts: Map<string, number>, limit: number) => [...counts].filter(([, n]) => n >= limit).map(([id]) => id);
  const add = (counts: Map<string, number>, id: string, by: number) => {
    const n = (counts.get(id) ?? 0) + by;
    if (n > 0) counts.set(id, n);
    else counts.delete(id);
  };
  return {
    free: () => limits.total - inFlight,
    /** Webhooks and workspaces that may take no more now: the next claim passes over their deliveries. */
    full: () => ({ webhooks: full(byWebhook, limits.perWebhook), workspaces: full(byWorkspace, limits.perWorkspace) }),
    /**
     * The order the next claim serves workspaces in: fewest slots in use first, then least recently served (as a rank,
     * higher is more recent; those not here never or long ago).
     */
    turns: () => ({ inUse: Object.fromEntries(byWorkspace), served: Object.fromEntries([...served].map((id, rank) => [id, rank])) }),
    take(holder: SlotHolder) {
      inFlight += 1;
      add(byWebhook, holder.webhook_id, 1);
      add(byWorkspace, holder.workspace_id, 1);
      served.delete(holder.workspace_id);
      served.add(holder.workspace_id);
      if (served.size > REMEMBERED_WORKSPACES) served.delete(served.values().next().value!);
    },
    release(holder: SlotHolder) {
      inFlight -= 1;
      add(byWebhook, holder.webhook_id, -1);
      add(byWorkspace, holder.workspace_id, -1);
    },
  };
}
