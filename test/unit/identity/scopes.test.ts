import { describe, expect, it } from 'vitest';
import { grants, invalidScopes, normaliseScopes, SCOPES, scopesOfToken } from '../../../adapters/identity/scopes.ts';

describe('scope vocabulary', () => {
  it('lists exactly the spec scopes', () => {
    expect([...SCOPES].sort()).toEqual(
      ['monitors:read', 'monitors:write', 'read:forum', 'read:microblog', 'read:social', 'usage:read', 'webhooks:read', 'webhooks:write'].sort(),
    );
  });

  it('reports the requested values that are not scopes', () => {
    expect(invalidScopes(['read:forum', 'usage:read'])).toEqual([]);
    expect(invalidScopes(['read:forum', 'read:everything', 'admin', 'READ:FORUM'])).toEqual(['read:everything', 'admin', 'READ:FORUM']);
  });
});

describe('grants', () => {
  it('grants a held scope and nothing unrelated', () => {
    expect(grants(['read:forum'], 'read:forum')).toBe(true);
    expect(grants(['read:forum'], 'read:microblog')).toBe(false);
    expect(grants(['usage:read'], 'monitors:read')).toBe(false);
    expect(grants([], 'read:forum')).toBe(false);
  });

  it('read:social covers every platform, including ones added later', () => {
    expect(grants(['read:social'], 'read:forum')).toBe(true);
    expect(grants(['read:social'], 'read:microblog')).toBe(true);
    expect(grants(['read:social'], 'read:videos')).toBe(true);
    expect(grants(['read:social'], 'usage:read')).toBe(false);
    expect(grants(['read:social'], 'monitors:read')).toBe(false);
  });

  it('per-platform scopes do not add up to read:social or cover a new platform', () => {
    expect(grants(['read:forum', 'read:microblog'], 'read:social')).toBe(false);
    expect(grants(['read:forum', 'read:microblog'], 'read:videos')).toBe(false);
  });

  it('write implies read for monitors and webhooks, never the reverse', () => {
    expect(grants(['monitors:write'], 'monitors:read')).toBe(true);
    expect(grants(['webhooks:write'], 'webhooks:read')).toBe(true);
    expect(grants(['monitors:read'], 'monitors:write')).toBe(false);
    expect(grants(['webhooks:read'], 'webhooks:write')).toBe(false);
    expect(grants(['monitors:write'], 'webhooks:read')).toBe(false);
  });
});

describe('normaliseScopes', () => {
  it('never stores both halves of an implied pair', () => {
    expect(normaliseScopes(['read:forum', 'read:social', 'read:microblog'])).toEqual(['read:social']);
    expect(normaliseScopes(['monitors:read', 'monitors:write'])).toEqual(['monitors:write']);
    expect(normaliseScopes(['webhooks:write', 'webhooks:read', 'usage:read'])).toEqual(['usage:read', 'webhooks:write']);
  });

  it('deduplicates and orders by the vocabulary', () => {
    expect(normaliseScopes(['usage:read', 'read:microblog', 'read:forum', 'usage:read'])).toEqual(['read:forum', 'read:microblog', 'usage:read']);
    expect(normaliseScopes([])).toEqual([]);
  });

  it('keeps what it removes reachable through grants', () => {
    const requested = [...SCOPES];
    const stored = normaliseScopes(requested);
    expect(stored).toEqual(['read:social', 'usage:read', 'monitors:write', 'webhooks:write']);
    for (const scope of requested) expect(grants(stored, scope), scope).toBe(true);
  });
});

describe('an MCP access token’s scopes', () => {
  it('are what both its own scope and its connection grant, implication either way', () => {
    const connection = ['read:social', 'usage:read', 'monitors:write'] as const;
    expect(scopesOfToken([...connection], ['read:social'])).toEqual(['read:social']);
    expect(scopesOfToken([...connection], ['read:forum', 'monitors:read', 'webhooks:write', 'nonsense'])).toEqual(['read:forum', 'monitors:read']);
    expect(scopesOfToken(['read:forum'], ['read:social', 'usage:read'])).toEqual(['read:forum']);
    expect(scopesOfToken([...connection], [''])).toEqual([]);
  });
});
