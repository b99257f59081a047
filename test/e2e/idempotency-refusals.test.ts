import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { charged } from '../support/assertions.ts';
import { fundedWorkspace, usageOf } from '../support/billing.ts';
import { startTestService, type TestService } from '../support/service.ts';

/** A request refused before it ran keeps nothing under its Idempotency-Key: the same request sent again runs. */
let svc: TestService;
const CEILING = 10;

beforeAll(async () => {
  svc = await startTestService({ tiers: { free: { rateLimitPerMinute: CEILING } } });
});
afterEach(() => {
  vi.useRealTimers();
});
afterAll(async () => {
  await svc?.close();
});

const search = (key: string, idem: string, body: unknown) => svc.request('POST', '/v1/forum/search', { key, body, headers: { 'idempotency-key': idem } });

describe('Idempotency-Key and refusals', () => {
  it('a 429 is not kept: once the window has passed the same key runs the request', async () => {
    const { key } = await fundedWorkspace(svc, 100);
    const body = { query: 'nothing-matches-qzxv' };
    // Searches weigh 2: these fill the window.
    for (let i = 0; i < CEILING / 2; i++) expect((await svc.request('POST', '/v1/forum/search', { key, body })).status).toBe(200);
    const idem = randomUUID();
    const refused = await search(key, idem, body);
    expect(refused.status).toBe(429);
    expect(refused.body.error.retryable).toBe(true);
    // The rate limiter's window runs on Date.now(): moved past its end rather than waited for.
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    vi.setSystemTime(Date.now() + 61_000);
    const again = await search(key, idem, body);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(again.body.meta.requestId).not.toBe(refused.body.meta.requestId);
    // The answer that ran is kept as usual.
    const replayed = await search(key, idem, body);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body.meta.requestId).toBe(again.body.meta.requestId);
  });

  it('a 402 is not kept: after a purchase the same key runs the request, charged once', async () => {
    const { key, workspaceId } = await fundedWorkspace(svc, 2);
    const body = { query: 'the', limit: 100 };
    const idem = randomUUID();
    const refused = await search(key, idem, body);
    expect(refused.status).toBe(402);
    expect(charged(refused)).toBe(0);
    expect((await svc.operator('POST', `/operator/workspaces/${workspaceId}/purchases`, { usdCents: 0, credits: 2000 })).status).toBe(201);
    const before = (await usageOf(svc, key)).balance;
    const ran = await search(key, idem, body);
    expect(ran.status).toBe(200);
    expect(ran.headers.get('idempotent-replayed')).toBeNull();
    expect(charged(ran)).toBeGreaterThan(2);
    const replayed = await search(key, idem, body);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(charged(replayed)).toBe(0);
    expect(before - (await usageOf(svc, key)).balance).toBe(charged(ran));
  });
});
