import type { SentCallOptions } from './call-options.ts';
import type { PlatformName } from './provenance.ts';
import { ServiceError } from './error-catalogue.ts';
import type { Meter } from './meter.ts';
import type { ServiceDeps } from './service-deps.ts';

/**
 * The authenticated caller: an API key of a workspace (the account), or an MCP connection (a client a person
 * approved through OAuth), which is billed, rate-limited and scoped exactly like a key; `keyId` is its id in the key list.
 */
export interface Principal {
  keyId: string;
  /** Absent means an API key. */
  kind?: 'api_key' | 'mcp_connection';
  workspaceId: string;
  label: 'live' | 'test';
  scopes: readonly string[];
  expiresAt: Date | null;
  createdAt: Date;
  /**
   * The person it answers to, for bounds per person (MCP streams): a connection's approver, a key's workspace owner;
   * absent for a workspace without an owner (one the operator made).
   */
  personId?: string;
}

export type Surface = 'graphql' | 'rest' | 'mcp';

/** Per-call context shared by the pipeline and resolvers. Built once per HTTP request (per MCP tool call). */
export interface RequestContext {
  requestId: string;
  surface: Surface;
  /** The raw `Authorization` header, checked by the pipeline only when an operation needs a key. */
  authorization: string | undefined;
  /** The connection's peer (per-address bounds on bad keys); absent for calls that come from no connection. */
  clientAddress?: string;
  principal?: Principal;
  /** The refusal of a key already looked up and found wanting (unknown, expired, revoked). */
  keyRefusal?: ServiceError;
  meter: Meter;
  deps: ServiceDeps;
  /** Headers the pipeline wants on the HTTP response (credits, rate limit). */
  responseHeaders: Record<string, string>;
  /** Per-request memo (dataloaders and the like), created lazily by resolvers. */
  memo: Map<string, unknown>;
  /** The clock, injectable for tests of expiry and month rollover. */
  now: () => Date;
  /** The catalogue operations the call ran (set by the pipeline), for the access log. */
  operation?: string;
  /** `maxCredits` and `dryRun` as the client sent them (headers, GraphQL extensions, MCP arguments). */
  callOptions?: SentCallOptions;
  /**
   * The root field's `limit` as the client asked it, when the pipeline serves a smaller page to keep within
   * `maxCredits`: the page's cursor stays bound to the request as sent.
   */
  limitAsked?: number;
  /**
   * Set by the pipeline when the account could not hold the call's worst case (schema/pipeline/walk-budget.ts): a walk
   * edge reserves its own worst case before fetching, and releases it once its result is metered; it throws the
   * refusal the call will end with once the account cannot pay for what the call has returned.
   */
  creditGuard?: (worstCase: number) => Promise<() => void>;
  /** When each platform first answered this call, for `meta.provenance`. */
  fetched?: Map<PlatformName, Date>;
}

/** Per-request memoised value, e.g. a dataloader set; never shared across requests. */
export function memoised<T>(ctx: RequestContext, key: string, create: () => T): T {
  let value = ctx.memo.get(key) as T | undefined;
  if (value === undefined) {
    value = create();
    ctx.memo.set(key, value);
  }
  return value;
}

/** The caller's workspace; the pipeline authenticates before any key-only field runs, so none is a bug. */
export function workspaceOf(ctx: RequestContext): string {
  if (!ctx.principal) throw new ServiceError('internal_error');
  return ctx.principal.workspaceId;
}
