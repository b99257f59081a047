import { describe, expect, it } from 'vitest';
import { createDeliveryPolicy, DISABLE_AFTER_MS, RETRY_DELAYS_MS } from '../../../adapters/webhooks/delivery-policy.ts';
import type { AttemptOutcome } from '../../../adapters/webhooks/delivery-worker.ts';
import { retryAfterMs } from '../../../adapters/webhooks/send-event.ts';

const failed = (statusCode: number | null, retryAfter: number | null = null): AttemptOutcome => ({ statusCode, error: 'x', durationMs: 1, responseExcerpt: null, retryAfterMs: retryAfter });
const now = new Date('2026-11-24T12:00:00Z');
const waitAfter = (policy: ReturnType<typeof createDeliveryPolicy>, attempts: number, outcome = failed(500)) => {
  const next = policy.nextAttemptAt(attempts, outcome, now);
  return next === null ? null : next.getTime() - now.getTime();
};

describe('webhook delivery policy', () => {
  it('retries on the Standard Webhooks schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h, then stops', () => {
    const middle = createDeliveryPolicy(() => 0.5);
    const waits = Array.from({ length: 10 }, (_, i) => waitAfter(middle, i + 1));
    const h = 3_600_000;
    expect(waits).toEqual([5_000, 300_000, 1_800_000, 2 * h, 5 * h, 10 * h, 14 * h, 20 * h, 24 * h, null]);
    expect(RETRY_DELAYS_MS).toHaveLength(9);
  });

  it('spreads each wait by up to 10 % either way', () => {
    expect(waitAfter(createDeliveryPolicy(() => 0), 2)).toBe(270_000);
    expect(waitAfter(createDeliveryPolicy(() => 0.999_999), 2)).toBeCloseTo(330_000, -1);
    const spread = new Set(Array.from({ length: 20 }, () => waitAfter(createDeliveryPolicy(), 2)));
    expect(spread.size).toBeGreaterThan(1);
    for (const wait of spread) expect(wait).toBeGreaterThanOrEqual(270_000);
  });

  it('never retries sooner than Retry-After asks, and does not shorten a longer wait for it', () => {
    const policy = createDeliveryPolicy(() => 0.5);
    expect(waitAfter(policy, 1, failed(429, 120_000))).toBe(120_000);
    expect(waitAfter(policy, 2, failed(503, 1_000))).toBe(300_000);
  });

  it('reads Retry-After as seconds or an HTTP date, bounded to 24 h', () => {
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs(new Date(now.getTime() + 60_000).toUTCString(), now)).toBe(60_000);
    expect(retryAfterMs('9999999', now)).toBe(86_400_000);
    expect(retryAfterMs('soon', now)).toBeNull();
    expect(retryAfterMs(undefined, now)).toBeNull();
  });

  it('counts 2xx as success and everything else, redirects and no answer included, as failure', () => {
    const policy = createDeliveryPolicy();
    expect([200, 204, 299].map((code) => policy.succeeded(failed(code)))).toEqual([true, true, true]);
    expect([199, 301, 410, 500, null].map((code) => policy.succeeded(failed(code)))).toEqual([false, false, false, false, false]);
  });

  it('disables a webhook at a 410, or once it has failed without a success for five days', () => {
    const policy = createDeliveryPolicy();
    expect(policy.disables(failed(410), now, now)).toBe(true);
    expect(policy.disables(failed(500), new Date(now.getTime() - DISABLE_AFTER_MS + 1), now)).toBe(false);
    expect(policy.disables(failed(500), new Date(now.getTime() - DISABLE_AFTER_MS), now)).toBe(true);
    expect(DISABLE_AFTER_MS).toBe(5 * 86_400_000);
  });
});
