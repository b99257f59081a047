import type { AttemptOutcome, DeliveryPolicy } from './delivery-worker.ts';

/**
 * The Standard Webhooks retry schedule: after the first attempt fails, wait 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h,
 * 20 h and 24 h (ten attempts over about three days), each wait spread by up to ±10 % so retries of many deliveries
 * do not arrive together.
 */
export const RETRY_DELAYS_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000, 86_400_000] as const;

/** A webhook failing without a single success for this long is disabled (Svix's rule). */
export const DISABLE_AFTER_MS = 5 * 86_400_000;

export function createDeliveryPolicy(random: () => number = Math.random): DeliveryPolicy {
  return {
    succeeded: (outcome) => outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300,
    nextAttemptAt(attempts: number, outcome: AttemptOutcome, now: Date) {
      const delay = RETRY_DELAYS_MS[attempts - 1];
      if (delay === undefined) return null;
      const jittered = delay * (0.9 + 0.2 * random());
      // The receiver asked for a longer pause: it is honoured, never shortened.
      return new Date(now.getTime() + Math.max(jittered, outcome.retryAfterMs ?? 0));
    },
    disables: (outcome, failingSince, now) => outcome.statusCode === 410 || now.getTime() - failingSince.getTime() >= DISABLE_AFTER_MS,
  };
}
