import type { CreditsService, Reservation } from '../../adapters/billing/credits-service.ts';
import type { Admission, BillingGate } from '../../core/service-deps.ts';

interface HeldAdmission extends Admission {
  reservation: Reservation;
}

/** The pipeline's credit hook on the ledger; its refusals (`CreditsRefusal`) are mapped with every other error. */
export function createBillingGate(credits: CreditsService): BillingGate {
  const balanceOf = async (workspaceId: string): Promise<number> => (await credits.usage(workspaceId))?.balance ?? 0;
  return {
    async admit(principal, request) {
      const reservation = await credits.admit(principal.workspaceId, request);
      return { id: reservation.id, reserved: reservation.credits, reservation } satisfies HeldAdmission;
    },
    async extend(_principal, admission, extra) {
      const reservation = await credits.extend((admission as HeldAdmission).reservation, extra);
      return { id: reservation.id, reserved: reservation.credits, reservation } satisfies HeldAdmission;
    },
    async settle(_principal, admission, amount) {
      return credits.settle((admission as HeldAdmission).reservation, amount);
    },
    async release(principal, admission) {
      await credits.release((admission as HeldAdmission).reservation);
      return { remaining: await balanceOf(principal.workspaceId) };
    },
    remaining: (principal) => balanceOf(principal.workspaceId),
  };
}
