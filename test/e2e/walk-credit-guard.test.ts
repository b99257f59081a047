import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { charged } from '../support/assertions.ts';
import { fundedWorkspace, usageOf } from '../support/billing.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { microblogOf } from './microblog-e2e-support.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.close();
});

const requests = () => microblogOf(svc).client.stats.requests;
// A List's members (one page) and each member's timeline (one page each): the worst case holds 1 + 100 + 100 × 20.
const WALK = '{ microblogList(id: "1500000000000000001") { members(limit: 100) { items { username posts(limit: 20) { items { text } } } } } }';

describe('a walk stops reading the platforms once its account cannot pay for what it already returned', () => {
  it('an account short of the worst case: the members page is read, no member timeline is, and the call is refused with nothing charged', async () => {
    const { key } = await fundedWorkspace(svc, 20);
    const before = await usageOf(svc, key);
    const upstream = requests();
    const res = await svc.graphql(WALK, {}, key);
    expect(res.status).toBe(402);
    expect(res.body.errors[0].extensions.code).toBe('insufficient_credits');
    expect(charged(res)).toBe(0);
    // The List and its members page at most: before, every member's timeline was read too (one request each).
    expect(requests() - upstream).toBeLessThanOrEqual(2);
    expect((await usageOf(svc, key)).balance).toBe(before.balance);
  });

  it.each([60, 120])('an account of %i credits, enough for the members page and a few timelines: the walk stops one timeline past what it can pay, and is refused with nothing charged', async (credits) => {
    const { key } = await fundedWorkspace(svc, credits);
    const upstream = requests();
    const res = await svc.graphql(WALK, {}, key);
    expect(res.status).toBe(402);
    expect(charged(res)).toBe(0);
    expect(res.body.data ?? null).toBeNull();
    // Before, every member's timeline was read (one request each, 45 here) whatever the balance above the first page.
    expect(requests() - upstream).toBeLessThan(15);
    expect((await usageOf(svc, key)).balance).toBe(credits);
  });

  it('an account holding less than the worst case but enough for the result: the walk runs whole and is charged exactly', async () => {
    const rich = await fundedWorkspace(svc, 100_000);
    const fullStart = requests();
    const full = await svc.graphql(WALK, {}, rich.key);
    const fullRequests = requests() - fullStart;
    expect(full.status).toBe(200);
    const price = charged(full);
    expect(price).toBeGreaterThan(100);
    expect(full.body.extensions.credits.worstCase).toBeGreaterThan(price);

    // Enough for this result, short of the worst case: the hold is the balance, and the walk is never stopped.
    const { key } = await fundedWorkspace(svc, price + 10);
    const upstream = requests();
    const res = await svc.graphql(WALK, {}, key);
    expect(res.status).toBe(200);
    expect(charged(res)).toBe(price);
    expect(res.body.data).toEqual(full.body.data);
    expect(fullRequests).toBeGreaterThanOrEqual(full.body.data.microblogList.members.items.length);
    expect(requests() - upstream).toBe(fullRequests);
    expect((await usageOf(svc, key)).balance).toBe(10);
  });
});
