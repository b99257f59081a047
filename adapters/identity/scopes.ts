/**
 * The scope vocabulary of the spec and its implication rules. Implication is resolved here, at check time,
 * so a key holding `read:social` keeps working for platforms added later without rewriting stored keys.
 */
export const PLATFORMS = ['forum', 'microblog'] as const;
export type Platform = (typeof PLATFORMS)[number];

export const SCOPES = [
  'read:forum',
  'read:microblog',
  'read:social',
  'usage:read',
  'monitors:read',
  'monitors:write',
  'webhooks:read',
  'webhooks:write',
] as const;
export type Scope = (typeof SCOPES)[number];

/** What every MCP connection may do (spec, Authentication 4); monitor and webhook access only when ticked. */
export const CONNECTION_SCOPES = ['read:social', 'usage:read'] as const satisfies readonly Scope[];

const SCOPE_SET: ReadonlySet<string> = new Set(SCOPES);
const PLATFORM_READ = /^read:[a-z][a-z0-9_-]*$/;

/** `*:write` implies `*:read` for these resources. */
const WRITE_IMPLIES_READ: Readonly<Record<string, string>> = {
  'monitors:write': 'monitors:read',
  'webhooks:write': 'webhooks:read',
};

export function isScope(value: string): value is Scope {
  return SCOPE_SET.has(value);
}

/** Returns the requested values that are not scopes of the vocabulary (empty when all are valid). */
export function invalidScopes(requested: readonly string[]): string[] {
  return requested.filter((scope) => !isScope(scope));
}

/**
 * Does a key holding `held` satisfy `required`? `required` may name a platform the vocabulary does not
 * list yet (`read:<platform>`): `read:social` covers it, which is the spec's promise for future platforms.
 */
export function grants(held: readonly string[], required: string): boolean {
  if (held.includes(required)) return true;
  if (PLATFORM_READ.test(required)) return held.includes('read:social');
  for (const [write, read] of Object.entries(WRITE_IMPLIES_READ)) {
    if (required === read && held.includes(write)) return true;
  }
  return false;
}

/**
 * Canonical stored form of a scope list: deduplicated, in vocabulary order, never both halves of an
 * implied pair (the spec: "a key never lists both halves"). Callers validate with `invalidScopes` first.
 */
export function normaliseScopes(requested: readonly Scope[]): Scope[] {
  const held = new Set<Scope>(requested);
  if (held.has('read:social')) {
    for (const platform of PLATFORMS) held.delete(`read:${platform}`);
  }
  for (const [write, read] of Object.entries(WRITE_IMPLIES_READ)) {
    if (held.has(write as Scope)) held.delete(read as Scope);
  }
  return SCOPES.filter((scope) => held.has(scope));
}

/**
 * What an MCP access token may do: the scopes its connection holds that its own `scope` also grants, and the reverse
 * (a token of `monitors:read` on a connection of `monitors:write` reads monitors; one of `read:forum` on `read:social`
 * reads the forum). A client can ask for less than its connection was approved for, never for more.
 */
export function scopesOfToken(connection: readonly Scope[], token: readonly string[]): Scope[] {
  const fromToken = token.filter(isScope).filter((scope) => grants(connection, scope));
  return normaliseScopes([...connection.filter((scope) => grants(token, scope)), ...fromToken]);
}
