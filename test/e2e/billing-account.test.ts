import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundedWorkspace, usageOf, visiblePostIds } from '../support/billing.ts';
import { charged } from '../support/assertions.ts';
import { startTestService, type TestService } from '../support/service.ts';

/** Account state over HTTP: free grant first, month rollover (injected clock), tiers, refunds. */
let svc: TestService;
let clock = new Date('2026-03-15T12:00:00Z');

beforeAll(async () => {
  svc = await startTestService({ now: () => clock, tiers: { free: { rateLimitPerMinute: 1_000_000 }, t1: { rateLimitPerMinute: 1_000_000 }, t2: { rateLimitPerMinute: 1_000_000 }, t3: { rateLimitPerMinute: 1_000_000 } } });
});
afterAll(async () => {
  await svc?.close();
});

async function grantedKey() {
  const person = await svc.service.identity.createPerson({ email: `grant-${crypto.randomUUID()}@example.invalid`, name: 'Grant' });
  const workspace = await svc.service.identity.createWorkspace({ name: 'oldest', ownerPersonId: person.id });
  const { key } = await svc.newKey({ workspaceId: workspace.id, scopes: ['read:social'] });
  return { key, workspaceId: workspace.id };
}

describe('free grant', () => {
  it("each person's oldest workspace gets 5,000 credits a month, spent before bought credits", async () => {
    const { key, workspaceId } = await grantedKey();
    const initial = await usageOf(svc, key);
    expect(initial).toMatchObject({ balance: 5_000, reserved: 0, available: 5_000, tier: 'free', spendingPaused: false });
    expect(initial.freeGrant).toEqual({ granted: 5_000, remaining: 5_000, resetsAt: '2026-04-01T00:00:00.000Z' });

    await svc.operator('POST', `/operator/workspaces/${workspaceId}/purchases`, { usdCents: 500, credits: 1_000 });
    const [id] = visiblePostIds(svc, 1);
    const res = await svc.request('GET', `/v1/forum/posts/${id}`, { key });
    expect(charged(res)).toBe(4);
    const after = await usageOf(svc, key);
    expect(after.balance).toBe(5_996);
    expect(after.freeGrant!.remaining).toBe(4_996);
  });

  it('a second workspace of the same person gets no grant', async () => {
    const { key } = await fundedWorkspace(svc, 0);
    expect((await usageOf(svc, key)).freeGrant).toBeNull();
  });

  it('the grant is replaced at resetsAt without carrying unused credits over; bought credits stay', async () => {
    const { key, workspaceId } = await grantedKey();
    await svc.operator('POST', `/operator/workspaces/${workspaceId}/purchases`, { usdCents: 0, credits: 300 });
    const [id] = visiblePostIds(svc, 1);
    await svc.request('GET', `/v1/forum/posts/${id}`, { key });
    expect((await usageOf(svc, key)).balance).toBe(5_296);

    clock = new Date('2026-04-01T00:00:01Z');
    const next = await usageOf(svc, key);
    expect(next.freeGrant).toEqual({ granted: 5_000, remaining: 5_000, resetsAt: '2026-05-01T00:00:00.000Z' });
    expect(next.balance).toBe(5_300);
    clock = new Date('2026-03-15T12:00:00Z');
  });
});

describe('tiers', () => {
  it('rise at $5, $100 and $500 of lifetime purchases and are reported by /v1/limits', async () => {
    const { key, workspaceId } = await fundedWorkspace(svc, 0);
    const buy = (usdCents: number) => svc.operator('POST', `/operator/workspaces/${workspaceId}/purchases`, { usdCents, credits: 1 });
    const tier = async () => (await svc.request('GET', '/v1/limits', { key })).body.data;
    expect((await tier()).tier).toBe('free');
    await buy(499);
    expect((await tier()).tier).toBe('free');
    await buy(1);
    const t1 = await tier();
    expect(t1).toMatchObject({ tier: 't1', hourlySchedules: true });
    expect(t1.rateLimitPerMinute).toBeGreaterThan(0);
    await buy(9_500);
    expect((await tier()).tier).toBe('t2');
    await buy(40_000);
    expect((await tier()).tier).toBe('t3');
    expect((await usageOf(svc, key)).tier).toBe('t3');
  });

  it('spending never lowers the tier; a refund lowers net purchases and takes back bought credits', async () => {
    const { key, workspaceId } = await fundedWorkspace(svc, 1_000, 10_000);
    expect((await usageOf(svc, key)).tier).toBe('t2');
    const [id] = visiblePostIds(svc, 1);
    await svc.request('GET', `/v1/forum/posts/${id}`, { key });
    expect((await usageOf(svc, key)).tier).toBe('t2');
    const refund = await svc.operator('POST', `/operator/workspaces/${workspaceId}/refunds`, { usdCents: 9_600, credits: 500 });
    expect(refund.status).toBe(201);
    expect(refund.body.data).toMatchObject({ balance: 496, refund: { usdCents: 9_600, usdCentsAsked: 9_600, creditsAsked: 500, creditsTakenBack: 500 } });
    const after = await usageOf(svc, key);
    expect(after.balance).toBe(496);
    expect(after.tier).toBe('free');
    // Fewer credits left than asked: refused whole, unless partial, which books the dollars' share, rounded down.
    const refused = await svc.operator('POST', `/operator/workspaces/${workspaceId}/refunds`, { usdCents: 100, credits: 1_000 });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'conflict', message: expect.stringContaining('Only 496 of the 1000 credits asked') });
    expect((await usageOf(svc, key)).balance).toBe(496);
    const partial = await svc.operator('POST', `/operator/workspaces/${workspaceId}/refunds`, { usdCents: 100, credits: 1_000, partial: true });
    expect(partial.body.data).toMatchObject({ balance: 0, refund: { usdCents: 49, usdCentsAsked: 100, creditsAsked: 1_000, creditsTakenBack: 496 } });
    const nothingLeft = await svc.operator('POST', `/operator/workspaces/${workspaceId}/refunds`, { usdCents: 100, credits: 50, partial: true });
    expect(nothingLeft.body.data.refund).toEqual({ usdCents: 0, usdCentsAsked: 100, creditsAsked: 50, creditsTakenBack: 0 });
    const ledger = (await svc.operator('GET', `/operator/workspaces/${workspaceId}/ledger`)).body.data as Array<{ kind: string }>;
    expect(ledger.map((row) => row.kind)).toEqual(expect.arrayContaining(['purchase', 'charge', 'refund']));
    const tooMuch = await svc.operator('POST', `/operator/workspaces/${workspaceId}/refunds`, { usdCents: 352, credits: 1 });
    expect(tooMuch.status).toBe(409);
    expect(tooMuch.body.error.code).toBe('conflict');
  });
});
