import type { CreditsService, Reservation } from '../adapters/billing/credits-service.ts';
import { isCreditsRefusal } from '../adapters/billing/credits-refusal.ts';
import { ServiceError } from '../schema/error-catalogue.ts';
import type { Admission, BillingGate } from '../schema/pipeline/service-deps.ts';

interface HeldAdmission extends Admission {
  reservation: Reservation;
}

/** Runs a credits call, turning its refusal into the catalogue's 402 / 429 credits_held. */
async function refusalsAsErrors<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!isCreditsRefusal(error)) throw error;
    const details = { balance: error.balance, available: error.available, minimumCredits: error.minimumCredits };
    if (error.code === 'credits_held') {
      throw new ServiceError('credits_held', { details: { reason: 'credits_held', ...details }, headers: { 'retry-after': '1' } });
    }
    throw new ServiceError(error.code, { details: { reason: error.code, ...details } });
  }
}

/** The pipeline's credit hook on the ledger: refusals become the catalogue's 402 / 429 credits_held. */
export function createBillingGate(credits: CreditsService): BillingGate {
  const balanceOf = async (workspaceId: string): Promise<number> => (await credits.usage(workspaceId))?.balance ?? 0;
  return {
    async admit(principal, request) {
      const reservation = await refusalsAsErrors(() => credits.admit(principal.workspaceId, request));
      return { id: reservation.id, reserved: reservation.credits, reservation } satisfies HeldAdmission;
    },
    async extend(_principal, admission, extra) {
      const reservation = await refusalsAsErrors(() => credits.extend((admission as HeldAdmission).reservation, extra));
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
