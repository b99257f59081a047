/**
 * MCP JSON-RPC messages other than tool calls (docs/api-conventions.md "MCP requests"). A `tools/call` weighs what its
 * operation weighs and a `subscriptions/listen` what SUBSCRIPTION_STREAMS says; every other message of a request
 * (`initialize`, `tools/list`, `ping`, notifications, …) weighs `rateLimitWeight` against the per-minute rate limit, so
 * none is free to repeat. A batch (protocol versions before 2025-06-18) holds at most `maxPerBatch` messages.
 */
export const MCP_MESSAGES = {
  rateLimitWeight: 1,
  maxPerBatch: 10,
} as const;
