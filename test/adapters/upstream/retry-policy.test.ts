import { describe, expect, it } from 'vitest';
import { fullJitterDelay, parseRetryAfterMs } from '../../../adapters/upstream/retry-policy.ts';
import { RateLimitGate } from '../../../adapters/upstream/rate-limit-gate.ts';

describe('retry policy', () => {
  it('full jitter stays within [0, min(cap, base·2^attempt))', () => {
    for (let attempt = 0; attempt < 8; attempt++) {
      for (let i = 0; i < 50; i++) {
        const delay = fullJitterDelay(attempt, 100, 1000);
        expect(delay).toBeGreaterThanOrEqual(0);
        expect(delay).toBeLessThan(Math.min(1000, 100 * 2 ** attempt));
      }
    }
  });

  it('reads Retry-After as seconds or as an HTTP date, ignores garbage', () => {
    expect(parseRetryAfterMs('3')).toBe(3000);
    expect(parseRetryAfterMs(['2', '9'])).toBe(2000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfterMs('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfterMs('soon')).toBeUndefined();
    expect(parseRetryAfterMs(undefined)).toBeUndefined();
  });
});

describe('rate-limit gate', () => {
  it('waits out an exhausted window given in seconds (forum style), bounded by the cap', async () => {
    const gate = new RateLimitGate(150);
    gate.observe({ 'x-ratelimit-remaining': '0.0', 'x-ratelimit-reset': '30' });
    const started = Date.now();
    await gate.waitIfExhausted();
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(140);
    expect(waited).toBeLessThan(1000);
  });

  it('reads an epoch reset (microblog style) and does not wait while quota remains', async () => {
    const gate = new RateLimitGate(5000);
    gate.observe({ 'x-rate-limit-remaining': '0', 'x-rate-limit-reset': String(Math.floor(Date.now() / 1000) - 1) });
    const started = Date.now();
    await gate.waitIfExhausted();
    expect(Date.now() - started).toBeLessThan(50);
    gate.observe({ 'x-rate-limit-remaining': '12', 'x-rate-limit-reset': String(Math.floor(Date.now() / 1000) + 600) });
    const again = Date.now();
    await gate.waitIfExhausted();
    expect(Date.now() - again).toBeLessThan(50);
  });
});
