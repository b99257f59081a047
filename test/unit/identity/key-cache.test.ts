import { describe, expect, it } from 'vitest';
import type { AuthenticatedKey } from '../../../adapters/identity/identity-store.ts';
import { KeyCache } from '../../../adapters/identity/key-cache.ts';

const key = (keyId: string): AuthenticatedKey => ({ keyId, workspaceId: 'w', label: 'live', scopes: ['read:forum'], expiresAt: null, createdAt: new Date(0) });

describe('KeyCache', () => {
  it('answers a remembered key until its cache lifetime ends', () => {
    const cache = new KeyCache<AuthenticatedKey>({ ttlMs: 1_000 });
    cache.remember('h1', key('k1'), null, cache.generation, 0);
    expect(cache.lookup('h1', 999)).toMatchObject({ keyId: 'k1' });
    expect(cache.lookup('h1', 1_000)).toBeUndefined();
  });

  it('says expired from the instant the key lapses, with no grace', () => {
    const cache = new KeyCache<AuthenticatedKey>();
    cache.remember('h1', key('k1'), 5_000, cache.generation, 0);
    expect(cache.lookup('h1', 4_999)).toMatchObject({ keyId: 'k1' });
    expect(cache.lookup('h1', 5_000)).toBe('expired');
  });

  it('forgets a changed key, and drops an answer read before the change', () => {
    const cache = new KeyCache<AuthenticatedKey>();
    cache.remember('h1', key('k1'), null, cache.generation, 0);
    const readStarted = cache.generation;
    cache.forget('k1');
    expect(cache.lookup('h1', 1)).toBeUndefined();
    // A read that began before the revocation comes back with the old row: it must not be cached.
    cache.remember('h1', key('k1'), null, readStarted, 2);
    expect(cache.lookup('h1', 3)).toBeUndefined();
  });

  it('forgets every credential of a changed key (an MCP connection has several access tokens)', () => {
    const cache = new KeyCache<AuthenticatedKey>();
    cache.remember('t1', key('k1'), null, cache.generation, 0);
    cache.remember('t2', key('k1'), null, cache.generation, 0);
    cache.remember('t3', key('k2'), null, cache.generation, 0);
    cache.forget('k1');
    expect(cache.lookup('t1', 1)).toBeUndefined();
    expect(cache.lookup('t2', 1)).toBeUndefined();
    expect(cache.lookup('t3', 1)).toMatchObject({ keyId: 'k2' });
  });

  it('caches nothing while disabled, and starts empty when enabled again', () => {
    const cache = new KeyCache<AuthenticatedKey>({ enabled: false });
    cache.remember('h1', key('k1'), null, cache.generation, 0);
    expect(cache.lookup('h1', 1)).toBeUndefined();
    cache.enable();
    cache.remember('h1', key('k1'), null, cache.generation, 0);
    expect(cache.lookup('h1', 1)).toMatchObject({ keyId: 'k1' });
    cache.disable();
    expect(cache.lookup('h1', 1)).toBeUndefined();
  });
});
