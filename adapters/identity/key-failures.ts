import { addressKey } from './address-key.ts';

/**
 * Requests with a key that is not valid (unknown, revoked, expired, malformed), counted per client address (an IPv6
 * one by its /64) in fixed one-minute windows on each instance: each unknown key is a database lookup, and keys are
 * long enough that no one guesses one, so a client sending a hundred bad keys a minute is loading the database, not
 * mistyping. Over the limit every request of the address with a key is refused before any lookup until its window
 * ends, a valid key's too (nothing tells them apart before the lookup). In memory: a bound per instance is enough
 * to keep one address from loading the database through it.
 */
export const KEY_FAILURES_PER_ADDRESS = { limit: 100, windowMs: 60_000 } as const;

/** Addresses remembered per instance; past this the map starts again (a flood of addresses is bounded elsewhere). */
const MAX_ADDRESSES = 100_000;

export interface KeyFailures {
  /** Seconds until the address may send a key again; 0 when it may now. */
  retryAfterSeconds(address: string | undefined, nowMs: number): number;
  /** The address sent a key that was not valid. */
  failed(address: string | undefined, nowMs: number): void;
}

/** IPv4 as it is (no parsing on the hot path); anything with a colon by addressKey (IPv6 /64, IPv4-mapped). */
const keyOf = (address: string): string => (address.includes(':') ? addressKey(address) : address);

export function createKeyFailures(rules: { limit: number; windowMs: number } = KEY_FAILURES_PER_ADDRESS): KeyFailures {
  const windows = new Map<string, { failures: number; endsAt: number }>();
  return {
    retryAfterSeconds(address, nowMs) {
      // The common case: no address sent a bad key this minute, and no work is done.
      if (windows.size === 0 || address === undefined) return 0;
      const window = windows.get(keyOf(address));
      if (!window || window.endsAt <= nowMs || window.failures < rules.limit) return 0;
      return Math.ceil((window.endsAt - nowMs) / 1000);
    },
    failed(address, nowMs) {
      if (address === undefined) return;
      const key = keyOf(address);
      const window = windows.get(key);
      if (window && window.endsAt > nowMs) {
        window.failures += 1;
        return;
      }
      if (windows.size >= MAX_ADDRESSES) {
        for (const [known, { endsAt }] of windows) if (endsAt <= nowMs) windows.delete(known);
        if (windows.size >= MAX_ADDRESSES) windows.clear();
      }
      windows.set(key, { failures: 1, endsAt: nowMs + rules.windowMs });
    },
  };
}
