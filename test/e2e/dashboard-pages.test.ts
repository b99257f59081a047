import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGN_UPS_PER_ADDRESS } from '../../adapters/people/sign-in-throttle.ts';
import { DashboardClient } from '../support/dashboard-client.ts';
import { startTestService, type TestService } from '../support/service.ts';

describe('dashboard usage, monitors and webhooks pages over HTTP', () => {
  let svc: TestService;
  const now = new Date('2026-11-24T12:00:00Z');
  let browser: DashboardClient;
  let workspaceId: string;
  let key: string;
  const base = () => `/dashboard/workspaces/${workspaceId}`;

  beforeAll(async () => {
    svc = await startTestService({ now: () => now, jobs: { autostart: false } });
    browser = new DashboardClient(svc.url);
    await browser.signUp('pages@example.com');
    const person = await svc.service.identity.getPersonByEmail('pages@example.com');
    [{ id: workspaceId }] = await svc.service.people.workspaces(person!.id);
    ({ key } = await svc.newKey({ workspaceId, scopes: ['read:social', 'usage:read', 'monitors:write', 'webhooks:write'] }));
  });

  afterAll(async () => {
    await svc?.close();
  });

  it('shows balance, reserved, the free grant and its reset, tier and limits, as the API reports them', async () => {
    const served = await svc.request('GET', '/v1/forum/posts/1a00005', { key });
    expect(served.status).toBe(200);
    const charged = Number(served.headers.get('x-credits-charged'));
    expect(charged).toBeGreaterThan(0);
    const usage = (await svc.request('GET', '/v1/usage', { key })).body.data;
    const limits = (await svc.request('GET', '/v1/limits', { key })).body.data;

    const shown = await browser.get(`${base()}/usage`);
    expect(shown.status).toBe(200);
    const figures = /<div class="grid" id="usage-figures">(.*?)<h2>/s.exec(shown.body)?.[1] ?? '';
    expect(figures).toContain(`<div class="figure">${usage.balance.toLocaleString('en-US')}</div>`);
    expect(figures).toContain(`<div class="figure">${usage.freeGrant.remaining.toLocaleString('en-US')} / 5,000</div>`);
    expect(figures).toContain('resets 2026-12-01 00:00 UTC');
    expect(shown.body).toContain(`<tr><th>Tier</th><td>${limits.tier}</td></tr>`);
    expect(shown.body).toContain(`${limits.rateLimitPerMinute.toLocaleString('en-US')} weighted requests per minute`);
    expect(shown.body).toContain('npm run admin -- credits:purchase --workspace');
  });

  it("charts the credits spent per day, today's bar holding today's charges", async () => {
    const page = await browser.get(`${base()}/usage`);
    const bars = [...page.body.matchAll(/data-day="(\d{4}-\d\d-\d\d)" data-credits="(\d+)"/g)].map(([, day, credits]) => [day, Number(credits)]);
    expect(bars).toHaveLength(30);
    expect(bars[0][0]).toBe('2026-10-26');
    expect(bars[29]).toEqual(['2026-11-24', expect.any(Number)]);
    const ledger = (await svc.request('GET', '/v1/usage/ledger', { key })).body;
    const today = ledger.meta.totals.filter((total: { day: string }) => total.day === '2026-11-24').reduce((sum: number, total: { credits: number }) => sum + total.credits, 0);
    expect(today).toBeGreaterThan(0);
    expect(bars[29][1]).toBe(today);
    expect(bars.slice(0, 29).every(([, credits]) => credits === 0)).toBe(true);
    expect(page.body).toMatch(/<td class="mono">getForumPost<\/td>/);
    expect(page.body).toMatch(/<td>grant<\/td><td>\+5,000<\/td>/);
  });

  it('lists monitors, and a monitor with its runs and results', async () => {
    const created = await svc.request('POST', '/v1/monitors', { key, body: { name: 'Rust watch', target: { kind: 'search', keywords: 'rust' }, schedule: 'daily' } });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    expect((await svc.request('POST', `/v1/monitors/${id}/run`, { key })).status).toBe(202);
    const list = await browser.get(`${base()}/monitors`);
    expect(list.body).toContain(`<a href="${base()}/monitors/${id}">Rust watch</a>`);
    expect(list.body).toContain('search: rust');
    const detail = await browser.get(`${base()}/monitors/${id}`);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatch(/<table id="runs">.*<span class="badge queued">queued<\/span>/s);
    expect(detail.body).toContain('Nothing new found yet');
    const stranger = new DashboardClient(svc.url);
    await stranger.signUp('stranger@example.com');
    expect((await stranger.get(`${base()}/monitors/${id}`)).status).toBe(404);
    expect((await browser.get(`${base()}/monitors/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
  });

  it('lists webhooks and their deliveries', async () => {
    const created = await svc.request('POST', '/v1/webhooks', { key, body: { name: 'inbox', url: 'http://127.0.0.1:9/hook' } });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const tested = await svc.request('POST', `/v1/webhooks/${id}/test`, { key });
    expect(tested.status).toBeLessThan(300);
    const page = await browser.get(`${base()}/webhooks?webhookId=${id}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<td class="mono">http://127.0.0.1:9/hook</td>');
    expect(page.body).toContain('Deliveries of “inbox”');
    expect(page.body).toMatch(new RegExp(`<table id="deliveries">.*<td>inbox</td>.*${tested.body.data.eventId}`, 's'));
    expect(page.body).not.toContain(created.body.data.secret);
  });

  it('stops one address from opening account after account, each bringing free credits', async () => {
    // Two accounts were opened from this address above.
    for (let i = 2; i < SIGN_UPS_PER_ADDRESS; i++) expect((await new DashboardClient(svc.url).signUp(`farm${i}@example.com`)).status).toBe(303);
    const refused = await new DashboardClient(svc.url).signUp('farm-extra@example.com');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('900');
    expect(refused.body).toContain('Too many sign-up attempts from this address. Try again in 15 minutes.');
    expect(await svc.service.identity.getPersonByEmail('farm-extra@example.com')).toBeNull();
  });
});
