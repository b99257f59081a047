/**
 * MCP `subscriptions/listen` streams (docs/mcp-auth.md "Subscription streams"). Opening one weighs against the
 * per-minute rate limit like a free call; each instance keeps at most this many open per key, per workspace, per
 * person and in all (a stream holds about 200 KB until its client closes it).
 */
export const SUBSCRIPTION_STREAMS = {
  rateLimitWeight: 1,
  maxOpenPerKey: 10,
  maxOpenPerWorkspace: 30,
  /** A person's keys and connections together, over all the workspaces the person owns or approved them in. */
  maxOpenPerPerson: 50,
  /** Below the MCP SDK's own 1,024, so a full instance answers our 429 rather than the SDK's -32603. */
  maxOpenPerInstance: 1_000,
  /**
   * Streams of free-tier workspaces, in all: sign-ups are free, so twenty of them (50 each) would otherwise fill the
   * instance; this way they can fill a fifth of it, and an account that has bought credits still finds a place.
   */
  maxOpenFreeTierPerInstance: 200,
  /** A refused client's wait: a stream ends only when its client, its key or the instance ends it, so this is a guess. */
  retryAfterSeconds: 30,
} as const;
