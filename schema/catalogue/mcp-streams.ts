/**
 * MCP `subscriptions/listen` streams (docs/mcp-auth.md "Subscription streams"). Opening one weighs against the
 * per-minute rate limit like a free call; each instance keeps at most this many open per key and per workspace
 * (a stream holds about 200 KB until its client closes it).
 */
export const SUBSCRIPTION_STREAMS = {
  rateLimitWeight: 1,
  maxOpenPerKey: 10,
  maxOpenPerWorkspace: 30,
  /** A refused client's wait: a stream ends only when its client, its key or the instance ends it, so this is a guess. */
  retryAfterSeconds: 30,
} as const;
