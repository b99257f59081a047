import { logger } from '../logging/logger.ts';
import { createRequire } from 'node:module';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { DEFAULT_TIERS, type Tier, type TierTable } from './tiers.ts';

/**
 * Weighted requests per minute per ACCOUNT (workspace), ceiling from the account's tier.
 *
 * Per account rather than per key: the tier, the credits and the ceiling belong to the workspace, and keys
 * cost nothing to create, so a per-key window would multiply the ceiling by the number of keys.
 *
 * Counted in memory, reconciled through a shared store (docs/hot-path.md): each instance takes a slice of an
 * account's window from the store — rate-limiter-flexible's counter in Redis (`REDIS_URL`) or PostgreSQL — and
 * admits calls against it without another round trip. Slices are a fraction of what the window has left (an
 * eighth), so most calls touch no store while several instances share one window exactly: the store never
 * grants more than the ceiling in total. A call the store cannot fit is refused, and so is every later call that
 * the last answer already shows cannot fit, without asking the store again until the window ends. The cost of
 * sharing is at the other end: units an instance holds unused are not available to another instance, so near
 * the ceiling an account can be refused up to the other instances' unused slices early; never admitted beyond
 * it. On the embedded default one process owns the database, so there is one instance: counted in memory, exact.
 * If the shared store fails mid-flight, an in-process counter with the same ceiling takes over
 * (rate-limiter-flexible's insurance limiter) rather than refusing every call or letting every call through.
 */
export type RateLimitOutcome =
  | { ok: true; remaining: number }
  | { ok: false; retryAfterSeconds: number }
  /** The call alone weighs more than the whole window allows: waiting cannot help. */
  | { ok: false; ceiling: number };

export interface WeightedRateLimiter {
  consume(workspaceId: string, tier: Tier, weight: number): Promise<RateLimitOutcome>;
  close(): Promise<void>;
}

export interface WeightedRateLimiterOptions {
  /** `postgres://…`: share the window through PostgreSQL; absent: in-process (embedded PGlite, one process). */
  databaseUrl?: string;
  /** `redis://…`: share the window through Redis instead of PostgreSQL. */
  redisUrl?: string;
  tiers?: TierTable;
  windowSeconds?: number;
  /** Created by the billing migration. */
  tableName?: string;
  poolSize?: number;
  /** Counts every round trip to the shared store (tests prove which calls make none). */
  onStoreCall?: () => void;
}

/** The store counts without a ceiling; the tier decides. */
const UNBOUNDED_POINTS = 2_000_000_000;
/** A slice is this fraction of what the window has left: large enough to spare round trips, small enough to share. */
const SLICE_DIVISOR = 8;
const REDIS_READY_MS = 5_000;

/** The slice of `pg` this file uses (the package ships no types). */
interface PgModule {
  Pool: new (options: { connectionString: string; max: number; connectionTimeoutMillis: number }) => { end(): Promise<void>; on(event: 'error', listener: (error: unknown) => void): void };
}

/** What this instance knows of one account's current window. */
interface Window {
  /** When the store's window ends (this instance's clock). */
  endsAt: number;
  /** The window's count in the store at the last round trip, slices of every instance included. */
  counted: number;
  /** Units of this instance's slices not yet used by a call. */
  unused: number;
  /** The store round trip in flight for this account, which concurrent calls wait for instead of starting another. */
  taking?: Promise<void>;
}

async function sharedStore(options: WeightedRateLimiterOptions, duration: number, insurance: RateLimiterAbstract): Promise<{ store: RateLimiterAbstract; close: () => Promise<void> }> {
  const common = { points: UNBOUNDED_POINTS, duration, keyPrefix: 'rl', insuranceLimiter: insurance };
  if (options.redisUrl) {
    const { Redis } = await import('ioredis');
    // No offline queue: while Redis is away a call falls back to the insurance counter instead of waiting.
    const client = new Redis(options.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    client.on('error', (error: unknown) => logger.error({ err: error }, 'rate-limit store (Redis) connection failed'));
    const ready = await Promise.race([
      new Promise<boolean>((resolve) => client.once('ready', () => resolve(true))),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), REDIS_READY_MS).unref()),
    ]);
    if (!ready) logger.warn('Redis is not reachable yet: rate limits are counted in this process until it is');
    return { store: new RateLimiterRedis({ storeClient: client, ...common }), close: async () => void client.disconnect() };
  }
  const pg = createRequire(import.meta.url)('pg') as PgModule;
  const pool = new pg.Pool({ connectionString: options.databaseUrl!, max: options.poolSize ?? 4, connectionTimeoutMillis: 5_000 });
  // An idle connection the database drops (a restart, a cut network) is only logged: the next query reconnects.
  pool.on('error', (error: unknown) => logger.error({ err: error }, 'rate-limit store connection failed'));
  const store = new RateLimiterPostgres({
    storeClient: pool,
    storeType: 'pool',
    tableName: options.tableName ?? 'billing_rate_limit',
    tableCreated: true,
    // One row per account, reused window after window: nothing to sweep.
    clearExpiredByTimeout: false,
    ...common,
  });
  return { store, close: () => pool.end() };
}

export async function createWeightedRateLimiter(options: WeightedRateLimiterOptions = {}): Promise<WeightedRateLimiter> {
  const tiers = options.tiers ?? DEFAULT_TIERS;
  const duration = options.windowSeconds ?? 60;
  const insurance = new RateLimiterMemory({ points: UNBOUNDED_POINTS, duration, keyPrefix: 'rl' });
  const shared = options.databaseUrl || options.redisUrl ? await sharedStore(options, duration, insurance) : undefined;
  const store = shared?.store ?? insurance;
  // One process alone (embedded default): every unit of the window may be this instance's at once.
  const sliceOf = (left: number) => (shared ? Math.ceil(left / SLICE_DIVISOR) : left);
  const windows = new Map<string, Window>();

  const windowOf = (workspaceId: string, now: number): Window => {
    let window = windows.get(workspaceId);
    // A window whose first round trip is still in flight has no end yet: it is the current one.
    if (!window || (!window.taking && now >= window.endsAt)) {
      if (windows.size >= 100_000) windows.clear();
      window = { endsAt: 0, counted: 0, unused: 0 };
      windows.set(workspaceId, window);
    }
    return window;
  };

  /** One round trip: asks the store for `wanted` units, keeps what fits under the ceiling, gives the rest back. */
  const take = async (workspaceId: string, window: Window, wanted: number, needed: number, ceiling: number): Promise<void> => {
    if (shared) options.onStoreCall?.();
    const counted = await store.consume(workspaceId, wanted);
    window.endsAt = Date.now() + counted.msBeforeNext;
    const granted = Math.min(wanted, ceiling - (counted.consumedPoints - wanted));
    const kept = granted >= needed ? granted : 0;
    window.counted = counted.consumedPoints - (wanted - kept);
    window.unused += kept;
    if (kept < wanted) {
      if (shared) options.onStoreCall?.();
      await store.reward(workspaceId, wanted - kept);
    }
  };

  return {
    async consume(workspaceId, tier, weight) {
      if (!Number.isInteger(weight) || weight < 1) throw new RangeError('A rate-limit weight is an integer ≥ 1.');
      const ceiling = tiers[tier].rateLimitPerMinute;
      if (weight > ceiling) return { ok: false, ceiling };
      // Bounded: each round trip either grants this call's weight or shows the window cannot fit it.
      for (;;) {
        const now = Date.now();
        const window = windowOf(workspaceId, now);
        if (window.unused >= weight) {
          window.unused -= weight;
          return { ok: true, remaining: Math.max(0, ceiling - window.counted) + window.unused };
        }
        // The store's last count shows the window cannot fit this call: refused with no round trip.
        if (window.endsAt > now && window.counted + weight - window.unused > ceiling) {
          return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((window.endsAt - now) / 1000)) };
        }
        if (window.taking) {
          await window.taking;
          continue;
        }
        const needed = weight - window.unused;
        const left = window.endsAt > now ? ceiling - window.counted : ceiling;
        window.taking = take(workspaceId, window, Math.min(left, Math.max(needed, sliceOf(left))), needed, ceiling).finally(() => (window.taking = undefined));
        await window.taking;
      }
    },
    close: async () => {
      await shared?.close();
    },
  };
}
