import type { CreditsService } from './credits-service.ts';

/**
 * Deletes expired reservations now and then. Expired holds already stop counting once their grace period is over; sweeping only
 * keeps the table (and the per-admission sum over it) small. Safe on every instance at once.
 */
export function startReservationSweeper(
  credits: Pick<CreditsService, 'sweepExpiredReservations'>,
  options: { intervalMs?: number; onError?: (error: unknown) => void } = {},
): { stop(): void } {
  const timer = setInterval(() => {
    credits.sweepExpiredReservations().catch((error: unknown) => options.onError?.(error));
  }, options.intervalMs ?? 60_000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
