import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { storedId } from '../../adapters/oauth/oauth-model-adapter.ts';
import { SESSION_TTL_MS } from '../../adapters/people/person-store.ts';
import { McpSignIn } from '../support/mcp-sign-in.ts';
import { browse, CookieJar, pkcePair } from '../support/oauth-client.ts';
import { startTestService, type TestService } from '../support/service.ts';

// The authorization server's session stands only for the dashboard's: it never outlives it, and sign-out ends it even
// once the dashboard session has run out (the commit review's finding 3, reproduced first at day 8 of 14).
const DAY_MS = 86_400_000;
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.close();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A browser signed in to the dashboard that approved a client (at `approveAt`, when the clock is faked). */
async function approvedBrowser(email: string, approveAt?: number) {
  const { person, workspace } = await svc.service.people.signUp({ email, password: 'correct horse battery', name: 'Eve' });
  const own = (await svc.service.people.startSession(person.id)).token;
  if (approveAt !== undefined) vi.setSystemTime(approveAt);
  const flow = new McpSignIn(svc.url, { session: own, workspaceId: workspace.id });
  const clientId = await flow.newClient();
  const begun = await flow.beginApproval(clientId, pkcePair().challenge, { session: own });
  expect((await flow.finishApproval(begun)).searchParams.get('code')).toEqual(expect.any(String));
  return { flow, clientId, jar: begun.jar, personId: person.id };
}

async function storedSession(jar: CookieJar): Promise<Array<{ expires_at: Date }>> {
  return svc.service.orm.em
    .getConnection()
    .execute(`select "expires_at" from "oauth_model" where "kind" = 'Session' and "id" = ?`, [storedId('Session', jar.get('_session')!)]);
}

describe('the authorization server’s session', () => {
  it('expires no later than the dashboard session it was signed in with', async () => {
    const before = Date.now();
    const { jar } = await approvedBrowser('ttl@example.com');
    const [row] = await storedSession(jar);
    expect(new Date(row.expires_at).getTime()).toBeLessThanOrEqual(Date.now() + SESSION_TTL_MS);
    expect(new Date(row.expires_at).getTime()).toBeGreaterThan(before + SESSION_TTL_MS - 60_000);
  });

  it('after the dashboard session expired, authorizing an approved client again asks for sign-in; sign-out still ends it', async () => {
    const start = Date.now();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(start);
    // Approved on day 6 of the dashboard session's 7: on day 8 the authorization server's session is still alive.
    const { flow, clientId, jar } = await approvedBrowser('eve@example.com', start + 6 * DAY_MS);
    vi.setSystemTime(start + 8 * DAY_MS);
    expect((await browse(jar, `${svc.url}/dashboard/workspaces`)).status).toBe(303);

    const again = await browse(jar, flow.authorizeUrl(clientId, pkcePair().challenge));
    const next = new URL(again.headers.get('location')!, svc.url);
    expect(next.searchParams.get('code')).toBeNull();
    expect(next.pathname).toMatch(/^\/oauth\/interaction\//);

    expect(await storedSession(jar)).toHaveLength(1);
    const out = await browse(jar, `${svc.url}/dashboard/sign-out`, { method: 'POST', headers: FORM, body: new URLSearchParams({ csrf: 'x' }) });
    expect([out.status, out.headers.get('location')]).toEqual([303, '/dashboard/sign-in']);
    expect(await storedSession(jar)).toHaveLength(0);
  });

  it('asks for sign-in when another person is now signed in to the dashboard in that browser', async () => {
    const { flow, clientId, jar } = await approvedBrowser('first@example.com');
    const other = await svc.service.people.signUp({ email: 'second@example.com', password: 'correct horse battery', name: 'Sam' });
    jar.set('svc_session', (await svc.service.people.startSession(other.person.id)).token);
    const again = await browse(jar, flow.authorizeUrl(clientId, pkcePair().challenge));
    const next = new URL(again.headers.get('location')!, svc.url);
    expect(next.searchParams.get('code')).toBeNull();
    expect(next.pathname).toMatch(/^\/oauth\/interaction\//);
  });

  it('refuses a sign-out posted from another site when no dashboard session is left, ending nothing', async () => {
    const { jar } = await approvedBrowser('cross@example.com');
    jar.set('svc_session', 'gone');
    const out = await browse(jar, `${svc.url}/dashboard/sign-out`, { method: 'POST', headers: { ...FORM, 'sec-fetch-site': 'cross-site' }, body: new URLSearchParams({ csrf: 'x' }) });
    expect(out.status).toBe(403);
    expect(await storedSession(jar)).toHaveLength(1);
  });
});
