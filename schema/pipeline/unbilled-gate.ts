import type { BillingGate } from '../../core/service-deps.ts';

/**
 * Serves every call without touching the ledger. Only for `SVC_BILLING=off`, which exists so the benchmark can
 * measure what billing costs against the same call unbilled, in the same run; the service warns loudly at start.
 */
export const unbilledGate: BillingGate = {
  admit: async () => ({ id: 'unbilled', reserved: Number.MAX_SAFE_INTEGER }),
  extend: async (_principal, admission) => admission,
  settle: async () => ({ charged: 0, remaining: 0 }),
  release: async () => ({ remaining: 0 }),
  remaining: async () => 0,
  lastKnownRemaining: () => 0,
};
