import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGN_UPS_PER_ADDRESS, THROTTLE_WINDOW_MS } from '../../adapters/people/sign-in-throttle.ts';
import { DashboardClient } from '../support/dashboard-client.ts';
import { startTestService, type TestService } from '../support/service.ts';

describe('dashboard sign-up throttle', () => {
  let svc: TestService;
  let now = new Date('2026-11-24T12:00:00Z');

  beforeAll(async () => {
    svc = await startTestService({ now: () => now, jobs: { autostart: false } });
  });

  afterAll(async () => {
    await svc?.close();
  });

  it('counts every attempt from an address, refused ones included: asking which emails have accounts is bounded too', async () => {
    const browser = new DashboardClient(svc.url);
    expect((await browser.signUp('ada@example.com')).status).toBe(303);
    const prober = new DashboardClient(svc.url);
    // One mistyped form, then probes of an email that has an account: each answered, each counted.
    expect((await prober.signUp('bob@example.com', 'short')).status).toBe(400);
    for (let i = 2; i < SIGN_UPS_PER_ADDRESS; i++) {
      const taken = await prober.signUp('ada@example.com');
      expect(taken.status, `attempt ${i + 1}`).toBe(409);
      expect(taken.body).toContain('already signed up with this email');
    }
    for (const email of ['ada@example.com', 'carol@example.com']) {
      const refused = await prober.signUp(email);
      expect(refused.status, email).toBe(429);
      expect(refused.headers.get('retry-after')).toBe(String(THROTTLE_WINDOW_MS / 1000));
      expect(refused.body).toContain('Too many sign-up attempts from this address. Try again in 15 minutes.');
      expect(refused.body).not.toContain('already signed up');
    }
    expect(await svc.service.identity.getPersonByEmail('carol@example.com')).toBeNull();

    now = new Date(now.getTime() + THROTTLE_WINDOW_MS);
    expect((await prober.signUp('carol@example.com')).status).toBe(303);
  });
});
