import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

/** Open registration, bounded: one address may register this many clients an hour on each instance. */
export const REGISTRATIONS_PER_HOUR = 30;

/** Seconds to wait when an address has registered too many clients this hour, or 0 when it may go on. */
export function createRegistrationLimit(perHour = REGISTRATIONS_PER_HOUR): (address: string) => Promise<number> {
  const limiter = new RateLimiterMemory({ points: perHour, duration: 3600, keyPrefix: 'oauth-register' });
  return async (address) => {
    try {
      await limiter.consume(address);
      return 0;
    } catch (refusal) {
      if (refusal instanceof RateLimiterRes) return Math.max(1, Math.ceil(refusal.msBeforeNext / 1000));
      throw refusal;
    }
  };
}
