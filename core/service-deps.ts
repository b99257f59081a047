import type { PagingStateStore } from '../adapters/db/paging-state-store.ts';
import type { ForumClient } from '../adapters/forum/forum-client.ts';
import type { MicroblogClient } from '../adapters/microblog/microblog-client.ts';
import type { IdempotencyStore } from '../adapters/db/idempotency-store.ts';
import type { Key } from '../adapters/db/keyring.ts';
import type { MonitorService } from '../adapters/monitors/monitor-service.ts';
import type { WebhookService } from '../adapters/webhooks/webhook-service.ts';
import type { Limits, Usage } from '../adapters/shapes/account-shapes.ts';
import type { Tier } from '../adapters/billing/tiers.ts';
import type { KeyFailures } from '../adapters/identity/key-failures.ts';
import type { UsageCharges } from '../adapters/usage/usage-charges.ts';
import type { Principal } from './request-context.ts';

export type AuthenticationResult = Principal | { failure: 'malformed' | 'unknown' | 'expired' | 'revoked' };

/** A credit reservation held while a billed call runs. */
export interface Admission {
  readonly id: string;
  readonly reserved: number;
}

/**
 * Credit metering hook of the pipeline. `admit` and `extend` throw a `CreditsRefusal` (402 / 429 credits_held)
 * to refuse; `settle` charges what the call returned and releases the rest; `release` gives everything back.
 */
export interface BillingGate {
  admit(principal: Principal, request: { minimumCredits: number; reserveCredits: number }): Promise<Admission>;
  /** Grows the hold by `extra` or throws the refusal `admit` would; the returned admission replaces the old one. */
  extend(principal: Principal, admission: Admission, extra: number): Promise<Admission>;
  settle(principal: Principal, admission: Admission, credits: number): Promise<{ charged: number; remaining: number }>;
  release(principal: Principal, admission: Admission): Promise<{ remaining: number }>;
  remaining(principal: Principal): Promise<number>;
  /** What is left as this instance last learned it, with no statement (a 429 reports it); undefined if nothing. */
  lastKnownRemaining(principal: Principal): number | undefined;
}

/** Rate-limit hook of the pipeline: throws a ServiceError (429 with Retry-After) when the weight does not fit. */
export interface RateGate {
  consume(principal: Principal, weight: number): Promise<void>;
  /** The account's tier as the rate limit knows it (cached for a few seconds). */
  tierOf(principal: Principal): Promise<Tier>;
}

/** One client per upstream platform. */
export interface PlatformClients {
  forum: ForumClient;
  microblog: MicroblogClient;
}

/**
 * What the schema layer needs from the outside world, injected by the service composition root, so that
 * resolvers stay testable and the schema never constructs adapters itself.
 */
export interface ServiceDeps {
  serviceName: string;
  version: string;
  /** `beforeLookup`: called before a database read of the key (identity-store.ts), which it may refuse by throwing. */
  authenticate(secret: string, beforeLookup?: (known: boolean) => void): Promise<AuthenticationResult>;
  /** Bad keys per client address (adapters/identity/key-failures.ts). */
  keyFailures: KeyFailures;
  databaseReady(): Promise<boolean>;
  billing: BillingGate;
  rateLimits: RateGate;
  /** Keys that sign cursors: the first signs, every one verifies (rotation). */
  cursorKeys: readonly Key[];
  /** Paging state too large to travel inside a cursor. */
  pagingStates: PagingStateStore;
  /** Upstream platform clients, built by the composition root. */
  platforms: PlatformClients;
  /** What `meta.provenance` names as each platform's upstream: its host, or `simulated`. */
  upstreams: Record<keyof PlatformClients, string>;
  /** Account operations (usage, limits, whoami details). */
  account: AccountPort;
  /** The account's monitors, their runs and results. */
  monitors: MonitorService;
  /** The account's webhooks and their deliveries. */
  webhooks: WebhookService;
  /** Responses kept under `Idempotency-Key`. */
  idempotency: IdempotencyStore;
  /** The usage ledger: what each call was charged, per operation, with its request id. */
  usage: UsageCharges;
}

/** Account state for the account operations; null when the workspace no longer exists. */
export interface AccountPort {
  usage(workspaceId: string): Promise<Usage | null>;
  limits(workspaceId: string): Promise<Limits | null>;
}
