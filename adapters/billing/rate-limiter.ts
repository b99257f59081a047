import { logger } from '../logging/logger.ts';
import { createRequire } from 'node:module';
import { RateLimiterMemory, RateLimiterPostgres, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { DEFAULT_TIERS, type Tier, type TierTable } from './tiers.ts';

/**
 * Weighted requests per minute per ACCOUNT (workspace), ceiling from the account's tier.
 *
 * Per account rather than per key: the tier, the credits and the ceiling belong to the workspace, and keys
 * cost nothing to create, so a per-key window would multiply the ceiling by the number of keys.
 *
 * Storage: with a database URL, rate-limiter-flexible's RateLimiterPostgres on its own small `pg` pool, so
 * every service instance on that database shares one window per account (fixed window; the table is created
 * by the billing migration, never by an instance at start). Without one the service runs on embedded PGlite,
 * which only one process may own, so there is only ever one instance and RateLimiterMemory is exact.
 * If PostgreSQL fails mid-flight, an in-process limiter with the same ceiling takes over (rate-limiter-flexible's
 * insurance limiter) rather than refusing every call or letting every call through.
 *
 * The store counts up without a ceiling of its own; each call compares the new count with its account's
 * current tier, so a promotion applies at once, and a refused call gives its weight back so it does not eat
 * into the window.
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
  tiers?: TierTable;
  windowSeconds?: number;
  /** Created by the billing migration. */
  tableName?: string;
  poolSize?: number;
}

/** The store counts without a ceiling; the tier decides. */
const UNBOUNDED_POINTS = 2_000_000_000;

/** The slice of `pg` this file uses (the package ships no types). */
interface PgModule {
  Pool: new (options: { connectionString: string; max: number; connectionTimeoutMillis: number }) => { end(): Promise<void>; on(event: 'error', listener: (error: unknown) => void): void };
}

export async function createWeightedRateLimiter(options: WeightedRateLimiterOptions = {}): Promise<WeightedRateLimiter> {
  const tiers = options.tiers ?? DEFAULT_TIERS;
  const duration = options.windowSeconds ?? 60;
  const insurance = new RateLimiterMemory({ points: UNBOUNDED_POINTS, duration, keyPrefix: 'rl' });
  let store: RateLimiterAbstract = insurance;
  let close = async () => {};

  if (options.databaseUrl) {
    const pg = createRequire(import.meta.url)('pg') as PgModule;
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize ?? 4, connectionTimeoutMillis: 5_000 });
    // An idle connection the database drops (a restart, a cut network) is only logged: the next query reconnects.
    pool.on('error', (error: unknown) => logger.error({ err: error }, 'rate-limit store connection failed'));
    store = new RateLimiterPostgres({
      storeClient: pool,
      storeType: 'pool',
      tableName: options.tableName ?? 'billing_rate_limit',
      tableCreated: true,
      // One row per account, reused window after window: nothing to sweep.
      clearExpiredByTimeout: false,
      points: UNBOUNDED_POINTS,
      duration,
      keyPrefix: 'rl',
      insuranceLimiter: insurance,
    });
    close = () => pool.end();
  }

  // A refused call counts its weight until it gives it back; a call of the same account counted in between
  // would see the inflated window and be refused wrongly. Each account's count-and-give-back therefore runs one
  // at a time in this process. Between instances the window can still be seen inflated for that instant, which
  // only ever errs towards refusing, never towards letting more through.
  const queues = new Map<string, Promise<unknown>>();
  const oneAtATime = <T>(key: string, step: () => Promise<T>): Promise<T> => {
    const run = (queues.get(key) ?? Promise.resolve()).then(step, step);
    const tail = run.catch(() => undefined);
    queues.set(key, tail);
    void tail.then(() => {
      if (queues.get(key) === tail) queues.delete(key);
    });
    return run;
  };

  return {
    async consume(workspaceId, tier, weight) {
      if (!Number.isInteger(weight) || weight < 1) throw new RangeError('A rate-limit weight is an integer ≥ 1.');
      const ceiling = tiers[tier].rateLimitPerMinute;
      if (weight > ceiling) return { ok: false, ceiling };
      return oneAtATime(workspaceId, async (): Promise<RateLimitOutcome> => {
        const counted = await store.consume(workspaceId, weight);
        if (counted.consumedPoints <= ceiling) return { ok: true, remaining: ceiling - counted.consumedPoints };
        await store.reward(workspaceId, weight);
        return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(counted.msBeforeNext / 1000)) };
      });
    },
    close: () => close(),
  };
}
