import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { addressKey } from '../identity/address-key.ts';

/** Open registration, bounded: one address may register this many clients an hour on each instance. */
export const REGISTRATIONS_PER_HOUR = 30;
/**
 * Authorization requests one address may make an hour on each instance: each may store an interaction (kept an hour)
 * before anyone signs in. A person connecting a client makes one to three.
 */
export const AUTHORIZATIONS_PER_HOUR = 120;

/** Seconds an address (an IPv6 one by its /64) must wait once it has used `perHour` this hour, or 0 when it may go on. */
function hourlyLimit(perHour: number, keyPrefix: string): (address: string) => Promise<number> {
  const limiter = new RateLimiterMemory({ points: perHour, duration: 3600, keyPrefix });
  return async (address) => {
    try {
      await limiter.consume(addressKey(address));
      return 0;
    } catch (refusal) {
      if (refusal instanceof RateLimiterRes) return Math.max(1, Math.ceil(refusal.msBeforeNext / 1000));
      throw refusal;
    }
  };
}

export function createRegistrationLimit(perHour = REGISTRATIONS_PER_HOUR): (address: string) => Promise<number> {
  return hourlyLimit(perHour, 'oauth-register');
}

export function createAuthorizationLimit(perHour = AUTHORIZATIONS_PER_HOUR): (address: string) => Promise<number> {
  return hourlyLimit(perHour, 'oauth-authorize');
}
