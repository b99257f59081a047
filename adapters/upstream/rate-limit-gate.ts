import { sleep } from './retry-policy.ts';

type Headers = Record<string, string | string[] | undefined>;

/**
 * Follows the upstream's own quota headers so we stop before it starts refusing us.
 * The forum sends `x-ratelimit-remaining` / `x-ratelimit-reset` (seconds until reset); the microblog sends
 * `x-rate-limit-remaining` / `x-rate-limit-reset` (epoch seconds). A reset value above 1e9 is read as epoch.
 */
export class RateLimitGate {
  private resetAt = 0;
  private exhausted = false;
  private readonly waitCapMs: number;

  constructor(waitCapMs: number) {
    this.waitCapMs = waitCapMs;
  }

  observe(headers: Headers, now = Date.now()): void {
    const remaining = numberHeader(headers['x-ratelimit-remaining'] ?? headers['x-rate-limit-remaining']);
    const reset = numberHeader(headers['x-ratelimit-reset'] ?? headers['x-rate-limit-reset']);
    if (remaining === undefined) return;
    this.exhausted = remaining < 1;
    if (reset !== undefined) this.resetAt = reset > 1e9 ? reset * 1000 : now + reset * 1000;
  }

  /** Bounded: a wrong or huge reset value must not stall a request for minutes. */
  async waitIfExhausted(now = Date.now()): Promise<void> {
    if (!this.exhausted) return;
    const wait = Math.min(this.resetAt - now, this.waitCapMs);
    this.exhausted = false;
    await sleep(wait);
  }
}

function numberHeader(value: string | string[] | undefined): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return undefined;
  const n = Number(raw);
  return Number.isFinite(n) ? n : undefined;
}
