import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_TTL_MS } from '../../adapters/people/person-store.ts';
import { FAILURES_PER_EMAIL, FAILURES_PER_EMAIL_PER_ADDRESS, SPARES_PER_EMAIL, THROTTLE_WINDOW_MS } from '../../adapters/people/sign-in-throttle.ts';
import { WORKSPACES_PER_PERSON } from '../../adapters/people/person-store.ts';
import { DashboardClient } from '../support/dashboard-client.ts';
import { startTestService, type TestService } from '../support/service.ts';

describe('dashboard sign-up, sign-in and sessions over HTTP', () => {
  let svc: TestService;
  let now = new Date('2026-11-24T12:00:00Z');

  beforeAll(async () => {
    svc = await startTestService({ now: () => now, jobs: { autostart: false } });
  });

  afterAll(async () => {
    await svc?.close();
  });

  it('signs a person up into a workspace of their own, with an HttpOnly SameSite=Lax session cookie', async () => {
    const browser = new DashboardClient(svc.url);
    const form = await browser.get('/dashboard/sign-up');
    expect(form.status).toBe(200);
    expect(form.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const created = await browser.post('/dashboard/sign-up', { email: 'Ada@Example.com', password: 'lovelace-1843', name: 'Ada' });
    expect(created.status).toBe(303);
    expect(created.location).toBe('/dashboard/workspaces');
    const cookie = created.headers.getSetCookie().find((line) => line.startsWith('svc_session='));
    expect(cookie).toMatch(/; Max-Age=604800; Path=\/; HttpOnly; SameSite=Lax$/);
    expect(cookie).not.toMatch(/Secure/);

    const workspaces = await browser.get('/dashboard/workspaces');
    expect(workspaces.status).toBe(200);
    expect(workspaces.body).toContain('ada@example.com');
    expect(workspaces.body).toContain("Ada's workspace");
  });

  it('marks cookies Secure with the __Host- prefix when served over https', async () => {
    const browser = new DashboardClient(svc.url, { 'x-forwarded-proto': 'https' });
    const created = await browser.signUp('secure@example.com');
    expect(created.status).toBe(303);
    expect(created.headers.getSetCookie().find((line) => line.startsWith('__Host-svc_session='))).toMatch(/; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
    expect((await browser.get('/dashboard/workspaces')).status).toBe(200);
  });

  it('names the field at fault and keeps what was typed when sign-up is refused', async () => {
    const browser = new DashboardClient(svc.url);
    await browser.get('/dashboard/sign-up');
    const short = await browser.post('/dashboard/sign-up', { email: 'bob@example.com', password: 'short', name: 'Bob' });
    expect(short.status).toBe(400);
    expect(short.body).toContain('The password must be 10 to 200 characters long.');
    expect(short.body).toContain('value="bob@example.com"');
    const taken = await browser.post('/dashboard/sign-up', { email: 'ADA@example.com', password: 'another-password' });
    expect(taken.status).toBe(409);
    expect(taken.body).toContain('already signed up with this email');
  });

  it('refuses forms without the right token or from another site, changing nothing', async () => {
    const anonymous = new DashboardClient(svc.url);
    expect((await anonymous.post('/dashboard/sign-in', { email: 'ada@example.com', password: 'lovelace-1843', csrf: null })).status).toBe(403);
    expect(anonymous.cookies.size).toBe(0);

    const browser = new DashboardClient(svc.url);
    await browser.signIn('ada@example.com', 'lovelace-1843');
    await browser.get('/dashboard/workspaces');
    const forged = await browser.post('/dashboard/workspaces', { name: 'Forged', csrf: 'x'.repeat(43) });
    expect(forged.status).toBe(403);
    const crossOrigin = await browser.post('/dashboard/workspaces', { name: 'Cross origin' }, { origin: 'https://evil.example' });
    expect(crossOrigin.status).toBe(403);
    const crossSite = await browser.post('/dashboard/workspaces', { name: 'Cross site' }, { 'sec-fetch-site': 'cross-site' });
    expect(crossSite.status).toBe(403);
    const list = await browser.get('/dashboard/workspaces');
    expect(list.body).not.toMatch(/Forged|Cross origin|Cross site/);

    const genuine = await browser.post('/dashboard/workspaces', { name: 'Research' }, { origin: svc.url, 'sec-fetch-site': 'same-origin' });
    expect(genuine.status).toBe(303);
    expect((await browser.get('/dashboard/workspaces')).body).toContain('Research');
  });

  it('throttles sign-in after repeated failures from an address, even with the right password, until the window ends; not from another address', async () => {
    const owner = new DashboardClient(svc.url);
    await owner.signUp('grace@example.com', 'hopper-cobol-59');
    const guesser = new DashboardClient(svc.url);
    await guesser.get('/dashboard/sign-in');
    for (let attempt = 0; attempt < FAILURES_PER_EMAIL_PER_ADDRESS; attempt++) {
      const wrong = await guesser.post('/dashboard/sign-in', { email: 'grace@example.com', password: `guess-${attempt}` });
      expect(wrong.status).toBe(401);
      expect(wrong.body).toContain('Wrong email or password.');
    }
    const throttled = await guesser.post('/dashboard/sign-in', { email: 'grace@example.com', password: 'hopper-cobol-59' });
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toBe(String(THROTTLE_WINDOW_MS / 1000));
    expect(throttled.body).toContain('Too many failed sign-ins. Try again in 15 minutes.');
    expect(guesser.cookies.has('svc_session')).toBe(false);

    // The owner connecting from another address is not locked out by those guesses (review F7).
    const elsewhere = new DashboardClient(svc.url, {}, { localAddress: '127.0.0.2' });
    expect((await elsewhere.signIn('grace@example.com', 'hopper-cobol-59')).status).toBe(303);
    expect(elsewhere.cookies.has('svc_session')).toBe(true);

    now = new Date(now.getTime() + THROTTLE_WINDOW_MS);
    const allowed = await guesser.post('/dashboard/sign-in', { email: 'grace@example.com', password: 'hopper-cobol-59' });
    expect(allowed.status).toBe(303);
    expect(guesser.cookies.has('svc_session')).toBe(true);
  });

  it('past the 20 guesses at an account, lets SPARES_PER_EMAIL fresh addresses in all try once, then none until the window ends', async () => {
    await new DashboardClient(svc.url).signUp('edsger@example.com', 'dijkstra-algol-60');
    // Each a loopback address of its own: other clients to the per-address counts, as the /64s of one /48 are (review 4).
    const from = (i: number) => new DashboardClient(svc.url, {}, { localAddress: `127.0.1.${i}` });
    // The owner's own browser signed in before the guessing: it is a known device from then on.
    const ownBrowser = from(200);
    expect((await ownBrowser.signIn('edsger@example.com', 'dijkstra-algol-60')).status).toBe(303);
    expect(ownBrowser.cookies.has('svc_device')).toBe(true);
    ownBrowser.cookies.delete('svc_session');
    let next = 1;
    for (; next <= FAILURES_PER_EMAIL / FAILURES_PER_EMAIL_PER_ADDRESS; next++) {
      const guesser = from(next);
      for (let i = 0; i < FAILURES_PER_EMAIL_PER_ADDRESS; i++) expect((await guesser.signIn('edsger@example.com', `guess-${i}`)).status).toBe(401);
    }
    for (let i = 0; i < SPARES_PER_EMAIL; i++) expect((await from(next++).signIn('edsger@example.com', 'guess-spare')).status).toBe(401);
    const refused = await from(next++).signIn('edsger@example.com', 'dijkstra-algol-60');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe(String(THROTTLE_WINDOW_MS / 1000));
    // The owner's browser is not locked out by all of that (review h, F1: before, 429 like the rest).
    expect((await ownBrowser.signIn('edsger@example.com', 'dijkstra-algol-60')).status).toBe(303);

    now = new Date(now.getTime() + THROTTLE_WINDOW_MS);
    expect((await from(next).signIn('edsger@example.com', 'dijkstra-algol-60')).status).toBe(303);
  });

  it('ends a session when it expires on the clock, and sends the person back to sign in', async () => {
    const browser = new DashboardClient(svc.url);
    await browser.signUp('linus@example.com');
    expect((await browser.get('/dashboard/workspaces')).status).toBe(200);
    now = new Date(now.getTime() + SESSION_TTL_MS - 1000);
    expect((await browser.get('/dashboard/workspaces')).status).toBe(200);
    now = new Date(now.getTime() + 1000);
    const expired = await browser.get('/dashboard/workspaces');
    expect(expired.status).toBe(303);
    expect(expired.location).toBe('/dashboard/sign-in?next=%2Fdashboard%2Fworkspaces');
  });

  it('signs out: the old cookie no longer opens a page', async () => {
    const browser = new DashboardClient(svc.url);
    await browser.signUp('edsger@example.com');
    await browser.get('/dashboard/workspaces');
    const cookie = browser.cookies.get('svc_session');
    const out = await browser.post('/dashboard/sign-out', {});
    expect(out.status).toBe(303);
    expect(out.headers.getSetCookie()[0]).toMatch(/^svc_session=; Max-Age=0/);
    const replay = new DashboardClient(svc.url);
    replay.cookies.set('svc_session', cookie as string);
    expect((await replay.get('/dashboard/workspaces')).status).toBe(303);
  });

  it('returns to the page asked for after sign-in, but never to another site', async () => {
    const browser = new DashboardClient(svc.url);
    await browser.get('/dashboard/sign-in?next=/dashboard/workspaces?from=link');
    const back = await browser.post('/dashboard/sign-in', { email: 'ada@example.com', password: 'lovelace-1843', next: '/dashboard/workspaces?from=link' });
    expect(back.location).toBe('/dashboard/workspaces?from=link');
    const other = new DashboardClient(svc.url);
    await other.get('/dashboard/sign-in');
    const away = await other.post('/dashboard/sign-in', { email: 'ada@example.com', password: 'lovelace-1843', next: '//evil.example/steal' });
    expect(away.location).toBe('/dashboard/workspaces');
  });

  it('never sends a signed-in person to another origin, nor fails, on a next a browser would read as another host', async () => {
    const browser = new DashboardClient(svc.url);
    await browser.get('/dashboard/sign-in');
    const tabbed = await browser.post('/dashboard/sign-in', { email: 'ada@example.com', password: 'lovelace-1843', next: '/\t/evil.example' });
    expect(tabbed.status).toBe(303);
    expect(tabbed.location).toBe('/dashboard/workspaces');
    // Signed in, the sign-in and sign-up pages redirect at once.
    for (const next of ['/\t/evil.example', '/\n/evil.example', '/\r/evil.example', '/\0/evil.example', '/.//evil.example', 'https:evil.example']) {
      for (const page of ['/dashboard/sign-in', '/dashboard/sign-up']) {
        const answer = await browser.get(`${page}?${new URLSearchParams({ next })}`);
        expect([page, next, answer.status, answer.location]).toEqual([page, next, 303, '/dashboard/workspaces']);
      }
    }
  });

  it('refuses a form field holding a NUL character with 400 naming the field, storing nothing', async () => {
    const anonymous = new DashboardClient(svc.url);
    await anonymous.get('/dashboard/sign-up');
    const signUp = await anonymous.post('/dashboard/sign-up', { email: 'nul@example.com', password: 'lovelace-1843', name: 'a\u0000b' });
    expect(signUp.status).toBe(400);
    expect(signUp.body).toMatch(/The field (&#39;|&#x27;|')name(&#39;|&#x27;|') must not contain the NUL character/);
    expect(await svc.service.identity.getPersonByEmail('nul@example.com')).toBeFalsy();
    await anonymous.get('/dashboard/sign-in');
    const signIn = await anonymous.post('/dashboard/sign-in', { email: 'ada\u0000@example.com', password: 'lovelace-1843' });
    expect(signIn.status).toBe(400);
    expect(signIn.body).toMatch(/The field (&#39;|&#x27;|')email(&#39;|&#x27;|')/);

    const ada = new DashboardClient(svc.url);
    await ada.signIn('ada@example.com', 'lovelace-1843');
    await ada.get('/dashboard/workspaces');
    const workspace = await ada.post('/dashboard/workspaces', { name: 'Nul\u0000space' });
    expect(workspace.status).toBe(400);
    expect(workspace.body).toMatch(/The field (&#39;|&#x27;|')name(&#39;|&#x27;|')/);
    expect((await ada.get('/dashboard/workspaces')).body).not.toContain('Nul');
  });

  it(`answers 409 with the reason once a person owns ${WORKSPACES_PER_PERSON} workspaces`, async () => {
    const browser = new DashboardClient(svc.url);
    await browser.signUp('many@example.com');
    await browser.get('/dashboard/workspaces');
    for (let i = 1; i < WORKSPACES_PER_PERSON; i++) expect((await browser.post('/dashboard/workspaces', { name: `W${i}` })).status).toBe(303);
    const refused = await browser.post('/dashboard/workspaces', { name: 'One too many' });
    expect(refused.status).toBe(409);
    expect(refused.body).toContain(`You already own ${WORKSPACES_PER_PERSON} workspaces`);
    expect(refused.body).not.toContain('One too many');
  });

  it("shows a workspace's pages to its members only", async () => {
    const ada = new DashboardClient(svc.url);
    await ada.signIn('ada@example.com', 'lovelace-1843');
    const [adaWorkspace] = await svc.service.people.workspaces((await svc.service.identity.getPersonByEmail('ada@example.com'))!.id);
    const stranger = new DashboardClient(svc.url);
    await stranger.signUp('stranger@example.com');
    const refused = await stranger.get(`/dashboard/workspaces/${adaWorkspace.id}/keys`);
    expect(refused.status).toBe(404);
    expect(refused.body).not.toContain(adaWorkspace.id);
  });
});
