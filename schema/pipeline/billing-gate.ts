import type { CreditLeases, LeasedAdmission } from '../../adapters/billing/credit-leases.ts';
import type { Admission, BillingGate } from '../../core/service-deps.ts';

interface HeldAdmission extends Admission {
  held: LeasedAdmission;
}

/**
 * The pipeline's credit hook: calls are admitted and settled on this instance's credit lease when it covers
 * them, else in the database (adapters/billing/credit-leases.ts). Refusals (`CreditsRefusal`) are mapped with
 * every other error.
 */
export function createBillingGate(leases: CreditLeases): BillingGate {
  const admitted = (held: LeasedAdmission): HeldAdmission => ({ id: held.id, reserved: held.credits, held });
  return {
    admit: async (principal, request) => admitted(await leases.admit(principal.workspaceId, request)),
    extend: async (_principal, admission, extra) => admitted(await leases.extend((admission as HeldAdmission).held, extra)),
    settle: (_principal, admission, amount) => leases.settle((admission as HeldAdmission).held, amount),
    release: (_principal, admission) => leases.release((admission as HeldAdmission).held),
    remaining: (principal) => leases.remaining(principal.workspaceId),
    lastKnownRemaining: (principal) => leases.lastKnownRemaining(principal.workspaceId),
  };
}
