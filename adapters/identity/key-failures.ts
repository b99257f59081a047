import { addressKey } from './address-key.ts';

/**
 * Lookups of credentials that were not valid (unknown, revoked, expired keys and MCP access tokens), counted per
 * client address (an IPv6 one by its /64) in fixed one-minute windows on each instance: each is a database read, and
 * they are long enough that no one guesses one, so many of them are load, not typos. A lookup is counted when it
 * starts and taken back when it finds a live credential, so parallel lookups cannot all pass the check at once. Past
 * the limit an address's lookups are refused until its window ends, but for credentials this instance read live
 * lately (KeyCache.known): clients already working from that address go on working. Malformed keys and cached
 * credentials cost no lookup and are not counted. No limit across addresses: one would let a few addresses refuse
 * every new client of an instance; load spread over many addresses is for the edge in front of the service.
 */
export const KEY_FAILURES = { perAddress: 100, windowMs: 60_000 } as const;

/** Addresses remembered per instance; past this the oldest windows go first. */
const MAX_ADDRESSES = 100_000;

export interface KeyFailures {
  /** Seconds until the address's lookups may start again; 0 when they may now. */
  retryAfterSeconds(address: string | undefined, nowMs: number): number;
  /** A lookup starts: counted as a failure until it finds a live credential. */
  lookingUp(address: string | undefined, nowMs: number): void;
  /** The lookup found a live credential: it is taken back from the window it was counted in, if that still runs. */
  found(address: string | undefined, nowMs: number): void;
}

interface Window {
  failures: number;
  endsAt: number;
}

/** IPv4 as it is (no parsing); anything with a colon by addressKey (IPv6 /64, IPv4-mapped). */
const keyOf = (address: string): string => (address.includes(':') ? addressKey(address) : address);

export function createKeyFailures(rules: { perAddress: number; windowMs: number } = KEY_FAILURES): KeyFailures {
  const windows = new Map<string, Window>();
  // Windows are kept in the order they started: ended ones leave from the front.
  const sweep = (nowMs: number) => {
    for (const [known, { endsAt }] of windows) {
      if (endsAt > nowMs && windows.size < MAX_ADDRESSES) break;
      windows.delete(known);
    }
  };
  return {
    retryAfterSeconds(address, nowMs) {
      sweep(nowMs);
      if (windows.size === 0 || address === undefined) return 0;
      const window = windows.get(keyOf(address));
      if (!window || window.endsAt <= nowMs || window.failures < rules.perAddress) return 0;
      return Math.ceil((window.endsAt - nowMs) / 1000);
    },
    lookingUp(address, nowMs) {
      if (address === undefined) return;
      const key = keyOf(address);
      const window = windows.get(key);
      if (window && window.endsAt > nowMs) window.failures += 1;
      else {
        windows.delete(key);
        windows.set(key, { failures: 1, endsAt: nowMs + rules.windowMs });
      }
    },
    found(address, nowMs) {
      const window = address === undefined ? undefined : windows.get(keyOf(address));
      if (window && window.endsAt > nowMs && window.failures > 0) window.failures -= 1;
    },
  };
}
