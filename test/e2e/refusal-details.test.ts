import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundedWorkspace } from '../support/billing.ts';
import { startTestService, type TestService } from '../support/service.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.close();
});

describe('a result that costs more than the balance', () => {
  it('is 402 whose details give the price and what was available to the call', async () => {
    const { key } = await fundedWorkspace(svc, 2);
    const res = await svc.request('GET', '/v1/forum/posts/1a00005', { key });
    expect(res.status).toBe(402);
    expect(res.body.error.details).toEqual({ reason: 'insufficient_credits', balance: 2, available: 2, price: 4 });
    // Not "out of credit": the account has 2, this answer costs 4.
    expect(res.body.error.message).toBe("This call's result costs 4 credits and the account has 2 available, so it was not given and nothing was charged: ask for fewer items (a smaller limit), or add credits.");
    expect(res.headers.get('x-credits-charged')).toBe('0');
  });
});
