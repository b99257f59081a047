import { addressKey } from './address-key.ts';

/**
 * Requests with a key or access token that is not valid (unknown, revoked, expired), counted in fixed one-minute
 * windows on each instance, per client address (an IPv6 one by its /64) and for the instance as a whole: each such
 * credential is a database lookup, and they are long enough that no one guesses one, so many of them are load, not
 * typos. Past either limit, a credential the instance does not hold in its cache is refused before its lookup
 * until the window ends (schema/pipeline/authenticate.ts); a cached one reads nothing and is never refused, so the
 * clients already working from that address, or on that instance, go on working. The instance's own limit bounds
 * the load however many addresses (IPv6 /64s) send them. Malformed keys are refused before any lookup and are not
 * counted.
 */
export const KEY_FAILURES = { perAddress: 100, perInstance: 3_000, windowMs: 60_000 } as const;

/** Addresses remembered per instance; past this the oldest windows go first (the instance's own limit still holds). */
const MAX_ADDRESSES = 100_000;

export interface KeyFailureRefusal {
  per: 'address' | 'instance';
  limit: number;
  retryAfterSeconds: number;
}

export interface KeyFailures {
  /** Why a credential not in the cache is refused before its lookup now; undefined when it may be looked up. */
  refusal(address: string | undefined, nowMs: number): KeyFailureRefusal | undefined;
  /** The address sent a credential that was looked up and was not valid. */
  failed(address: string | undefined, nowMs: number): void;
}

interface Window {
  failures: number;
  endsAt: number;
}

/** IPv4 as it is (no parsing on the hot path); anything with a colon by addressKey (IPv6 /64, IPv4-mapped). */
const keyOf = (address: string): string => (address.includes(':') ? addressKey(address) : address);

export function createKeyFailures(rules: { perAddress: number; perInstance: number; windowMs: number } = KEY_FAILURES): KeyFailures {
  const windows = new Map<string, Window>();
  let instance: Window = { failures: 0, endsAt: 0 };
  const secondsLeft = (window: Window, nowMs: number) => Math.ceil((window.endsAt - nowMs) / 1000);
  return {
    refusal(address, nowMs) {
      if (instance.endsAt > nowMs && instance.failures >= rules.perInstance) return { per: 'instance', limit: rules.perInstance, retryAfterSeconds: secondsLeft(instance, nowMs) };
      // The common case: no address sent a bad credential lately, and no work is done.
      if (windows.size === 0 || address === undefined) return undefined;
      const window = windows.get(keyOf(address));
      if (!window || window.endsAt <= nowMs || window.failures < rules.perAddress) return undefined;
      return { per: 'address', limit: rules.perAddress, retryAfterSeconds: secondsLeft(window, nowMs) };
    },
    failed(address, nowMs) {
      if (instance.endsAt <= nowMs) instance = { failures: 0, endsAt: nowMs + rules.windowMs };
      instance.failures += 1;
      // Windows are kept in the order they started: ended ones leave from the front, a few per failure.
      for (const [known, { endsAt }] of windows) {
        if (endsAt > nowMs && windows.size < MAX_ADDRESSES) break;
        windows.delete(known);
      }
      if (address === undefined) return;
      const key = keyOf(address);
      const window = windows.get(key);
      if (window && window.endsAt > nowMs) window.failures += 1;
      else {
        windows.delete(key);
        windows.set(key, { failures: 1, endsAt: nowMs + rules.windowMs });
      }
    },
  };
}
