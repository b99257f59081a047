import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWeightedRateLimiter, type WeightedRateLimiter } from '../../../adapters/billing/rate-limiter.ts';
import { createTierTable } from '../../../adapters/billing/tiers.ts';
import { openBillingFixture, type BillingFixture } from './billing-fixture.ts';

const tiers = createTierTable({ free: { rateLimitPerMinute: 10 }, t1: { rateLimitPerMinute: 20 } });

describe('weighted per-account rate limit', () => {
  let fixture: BillingFixture;
  const limiters: WeightedRateLimiter[] = [];
  /** Shared through PostgreSQL when the tests run on it; in-process on PGlite (one process owns it). */
  const open = async (windowSeconds = 60) => {
    const limiter = await createWeightedRateLimiter({ databaseUrl: fixture.database.databaseUrl, tiers, windowSeconds });
    limiters.push(limiter);
    return limiter;
  };

  beforeAll(async () => {
    fixture = await openBillingFixture(); // applies the migration that creates the limiter's table
  });
  afterAll(async () => {
    for (const limiter of limiters) await limiter.close();
    await fixture?.close();
  });

  it('adds weights up to the tier ceiling; a refused call reports Retry-After and does not use the window', async () => {
    const limiter = await open();
    const account = await fixture.createWorkspace({ freeGrant: false });
    expect(await limiter.consume(account, 'free', 3)).toEqual({ ok: true, remaining: 7 });
    expect(await limiter.consume(account, 'free', 4)).toEqual({ ok: true, remaining: 3 });
    const refused = await limiter.consume(account, 'free', 4);
    expect(refused.ok).toBe(false);
    const { retryAfterSeconds } = refused as { retryAfterSeconds: number };
    expect(retryAfterSeconds).toBeGreaterThanOrEqual(59);
    expect(retryAfterSeconds).toBeLessThanOrEqual(60);
    expect(await limiter.consume(account, 'free', 3)).toEqual({ ok: true, remaining: 0 });
    expect((await limiter.consume(account, 'free', 1)).ok).toBe(false);
    // The ceiling is the account's current tier: a promotion applies to the same window at once.
    expect(await limiter.consume(account, 't1', 2)).toEqual({ ok: true, remaining: 8 });
    // Another account has its own window.
    expect(await limiter.consume(await fixture.createWorkspace({ freeGrant: false }), 'free', 10)).toEqual({ ok: true, remaining: 0 });
  });

  it('a refused call never makes a concurrent call of the same account fail', async () => {
    const limiter = await open();
    // Repeated: on PostgreSQL the interleaving depends on the pool, in memory it is the same every time.
    for (let round = 0; round < 10; round++) {
      const account = await fixture.createWorkspace({ freeGrant: false });
      expect(await limiter.consume(account, 'free', 9)).toEqual({ ok: true, remaining: 1 });
      const [heavy, light] = await Promise.all([limiter.consume(account, 'free', 4), limiter.consume(account, 'free', 1)]);
      expect(heavy.ok).toBe(false);
      expect(light).toEqual({ ok: true, remaining: 0 });
    }
  });

  it('opens a new window once Retry-After has passed', async () => {
    const limiter = await open(1);
    const account = await fixture.createWorkspace({ freeGrant: false });
    expect((await limiter.consume(account, 'free', 10)).ok).toBe(true);
    const refused = await limiter.consume(account, 'free', 1);
    expect(refused).toEqual({ ok: false, retryAfterSeconds: 1 });
    await new Promise((done) => setTimeout(done, 1_050));
    expect(await limiter.consume(account, 'free', 1)).toEqual({ ok: true, remaining: 9 });
  });

  it('keeps limiting in-process when its PostgreSQL store is unreachable', async () => {
    const limiter = await createWeightedRateLimiter({ databaseUrl: 'postgres://postgres@127.0.0.1:1/none', tiers });
    limiters.push(limiter);
    expect(await limiter.consume('unreachable-store', 'free', 10)).toEqual({ ok: true, remaining: 0 });
    expect((await limiter.consume('unreachable-store', 'free', 1)).ok).toBe(false);
  });

  it('counts one window per account across two limiter instances when backed by PostgreSQL', async () => {
    const [first, second] = [await open(), await open()];
    const account = await fixture.createWorkspace({ freeGrant: false });
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? first : second).consume(account, 'free', 1)),
    );
    const admitted = outcomes.filter((o) => o.ok).length;
    // PostgreSQL: one shared window, so exactly the ceiling in total. PGlite (embedded, one process only):
    // each in-process limiter counts alone.
    expect(admitted).toBe(fixture.database.backend === 'postgresql' ? 10 : 20);
  });

  it('counts in memory between round trips: slices of the window, not one store call per call', async () => {
    let storeCalls = 0;
    const limiter = await createWeightedRateLimiter({ databaseUrl: fixture.database.databaseUrl, tiers: createTierTable({ free: { rateLimitPerMinute: 1_000 } }), onStoreCall: () => storeCalls++ });
    limiters.push(limiter);
    const account = await fixture.createWorkspace({ freeGrant: false });
    const outcomes = await Promise.all(Array.from({ length: 200 }, () => limiter.consume(account, 'free', 1)));
    expect(outcomes.every((o) => o.ok)).toBe(true);
    // Each slice is an eighth of what is left: 200 of 1,000 take a handful of round trips (none in memory).
    expect(storeCalls).toBeLessThanOrEqual(fixture.database.backend === 'postgresql' ? 5 : 0);
  });

  it.runIf(process.env.TEST_REDIS_URL)('shares one exact window between two instances through Redis (REDIS_URL)', async () => {
    const open = () => createWeightedRateLimiter({ redisUrl: process.env.TEST_REDIS_URL, tiers });
    const [first, second] = [await open(), await open()];
    limiters.push(first, second);
    const account = `redis-${crypto.randomUUID()}`;
    const outcomes = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? first : second).consume(account, 'free', 1)));
    expect(outcomes.filter((o) => o.ok).length).toBe(10);
    const refused = await first.consume(account, 'free', 1);
    expect(refused).toMatchObject({ ok: false });
    expect((refused as { retryAfterSeconds: number }).retryAfterSeconds).toBeGreaterThan(0);
  });
});
