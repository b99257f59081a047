import { describe, expect, it } from 'vitest';
import { createKeyFailures } from '../../adapters/identity/key-failures.ts';
import { KeyCache } from '../../adapters/identity/key-cache.ts';

describe('lookups of bad credentials, counted per address', () => {
  const rules = { perAddress: 3, windowMs: 60_000 };

  it('refuses an address past its limit until its window ends, an IPv6 client by its /64', () => {
    const failures = createKeyFailures(rules);
    for (let i = 0; i < 3; i++) failures.lookingUp(`2001:db8:1:2::${i + 1}`, 0);
    expect(failures.retryAfterSeconds('2001:db8:1:2::ffff', 1_000)).toBe(59);
    expect(failures.retryAfterSeconds('2001:db8:1:3::1', 1_000)).toBe(0);
    expect(failures.retryAfterSeconds('2001:db8:1:2::1', 60_000)).toBe(0);
  });

  it('counts a lookup when it starts, so parallel ones cannot all pass, and takes back one that found a live credential', () => {
    const failures = createKeyFailures(rules);
    // Three lookups under way at once: the fourth is refused before any has answered (review h: all 400 went through).
    for (let i = 0; i < 3; i++) failures.lookingUp('192.0.2.1', 0);
    expect(failures.retryAfterSeconds('192.0.2.1', 0)).toBe(60);
    failures.found('192.0.2.1', 10);
    expect(failures.retryAfterSeconds('192.0.2.1', 10)).toBe(0);
  });

  it('forgets ended windows, so an address starts afresh', () => {
    const failures = createKeyFailures(rules);
    for (let i = 0; i < 3; i++) failures.lookingUp('192.0.2.9', 0);
    expect(failures.retryAfterSeconds('192.0.2.9', 60_001)).toBe(0);
    for (let i = 0; i < 2; i++) failures.lookingUp('192.0.2.9', 60_001);
    expect(failures.retryAfterSeconds('192.0.2.9', 60_002)).toBe(0);
  });
});

describe('a credential known as lately good', () => {
  it('stays known after its cache entry ends and while the cache is off, so its lookups go through the limit', () => {
    const cache = new KeyCache<{ keyId: string }>({ ttlMs: 60_000 });
    cache.remember('h1', { keyId: 'k1' }, null, cache.generation, 0);
    expect(cache.lookup('h1', 60_001)).toBeUndefined();
    // Before: only a cached entry counted, so a client idle for a minute was refused with the guessers (review h).
    expect(cache.known('h1')).toBe(true);
    cache.disable();
    cache.remember('h2', { keyId: 'k2' }, null, cache.generation, 0);
    expect([cache.known('h2'), cache.known('h3')]).toEqual([true, false]);
  });
});
