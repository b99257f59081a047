import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTHORIZATIONS_PER_HOUR } from '../../adapters/oauth/registration-limit.ts';
import { AUTHORIZATION_PARAMETER_MAX, AUTHORIZATION_REQUEST_MAX } from '../../oauth-server/authorization-request-check.ts';
import { McpSignIn } from '../support/mcp-sign-in.ts';
import { pkcePair } from '../support/oauth-client.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * GET /oauth/authorize stores an interaction (kept an hour) for every request, before anyone signs in: its
 * parameters are bounded and an address may make only so many an hour (docs/mcp-auth.md "The authorization server").
 */
let svc: TestService;
let flow: McpSignIn;
let clientId: string;
const { challenge } = pkcePair();

beforeAll(async () => {
  svc = await startTestService();
  flow = new McpSignIn(svc.url, { session: 'none', workspaceId: 'none' });
  clientId = await flow.newClient();
});
afterAll(async () => {
  await svc?.close();
});

const interactions = async () =>
  Number((await svc.service.orm.em.getConnection().execute(`select count(*)::int as "n" from "oauth_model" where "kind" = 'Interaction'`))[0].n);

const authorize = (extra: Record<string, string>, init: RequestInit = {}) => fetch(flow.authorizeUrl(clientId, challenge, extra), { redirect: 'manual', ...init });

/** Headers every sign-in page carries, as the dashboard's: never framed, nothing loaded from elsewhere. */
function expectPageHeaders(res: Response): void {
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  expect(res.headers.get('x-frame-options')).toBe('DENY');
  expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
}

describe('the authorization endpoint', () => {
  it('refuses a parameter longer than the bound with invalid_request on a page, storing nothing', async () => {
    const before = await interactions();
    const res = await authorize({ state: randomBytes(11_000).toString('base64url') });
    expect(res.status).toBe(400);
    expectPageHeaders(res);
    expect(await res.text()).toContain(`invalid_request: state is longer than ${AUTHORIZATION_PARAMETER_MAX} characters`);
    expect(await interactions()).toBe(before);
  });

  it('takes a parameter of exactly the bound', async () => {
    const res = await authorize({ state: 's'.repeat(AUTHORIZATION_PARAMETER_MAX) });
    expect(res.status).toBe(303);
  });

  it('refuses parameters longer than the bound together, and a long one posted as a form', async () => {
    const many = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`x${i}`, 'v'.repeat(AUTHORIZATION_REQUEST_MAX / 5)]));
    expect((await authorize(many)).status).toBe(400);
    const form = new URL(flow.authorizeUrl(clientId, challenge, { state: 'z'.repeat(AUTHORIZATION_PARAMETER_MAX + 1) }));
    const posted = await fetch(`${svc.url}/oauth/authorize`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.searchParams.toString() });
    expect(posted.status).toBe(400);
    expectPageHeaders(posted);
  });

  it('shows its own errors (an unknown client) on a page with the same headers', async () => {
    const res = await fetch(flow.authorizeUrl('no-such-client', challenge), { redirect: 'manual' });
    expect(res.status).toBe(400);
    expectPageHeaders(res);
    expect(await res.text()).toContain('invalid_client');
  });

  // Last: it uses up this address's allowance.
  it(`takes ${AUTHORIZATIONS_PER_HOUR} requests an hour from one address, then 429 with Retry-After, storing nothing more`, async () => {
    // The earlier tests' requests that reached the endpoint count too.
    let taken = 0;
    while (taken <= AUTHORIZATIONS_PER_HOUR && (await authorize({})).status === 303) taken++;
    expect(taken).toBeGreaterThan(AUTHORIZATIONS_PER_HOUR - 5);
    expect(taken).toBeLessThan(AUTHORIZATIONS_PER_HOUR);
    const before = await interactions();
    const refused = await authorize({});
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3000);
    expectPageHeaders(refused);
    expect(await interactions()).toBe(before);
  });
});
