import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashboardClient } from '../support/dashboard-client.ts';
import { browse, CookieJar, pkcePair, registerClient } from '../support/oauth-client.ts';
import { startTestService, type TestService } from '../support/service.ts';

const REDIRECT = 'http://127.0.0.1:53682/callback';

/** Sign-up, then an MCP authorization up to its approval screen, over plain loopback HTTP: every Set-Cookie line seen. */
async function cookiesOfAFlow(svc: TestService, publicUrl: string): Promise<{ cookies: string[]; screenStatus: number }> {
  const browser = new DashboardClient(svc.url);
  const signUp = await browser.get('/dashboard/sign-up');
  const created = await browser.signUp(`person-${Math.random()}@example.com`);
  expect(created.status).toBe(303);
  const registered = await registerClient(svc.url, { client_name: 'Agent', redirect_uris: [REDIRECT], grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'none' });
  expect(registered.status).toBe(201);
  const jar = new CookieJar();
  for (const [name, value] of browser.cookies) jar.set(name, value);
  const authorize = await browse(
    jar,
    `${svc.url}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: registered.body.client_id, redirect_uri: REDIRECT, code_challenge: pkcePair().challenge, code_challenge_method: 'S256', state: 's', scope: 'read:social', resource: `${publicUrl}/mcp` })}`,
  );
  expect(authorize.status).toBe(303);
  // The dashboard session (named as the dashboard named it) is recognised on the approval screen.
  const screen = await browse(jar, new URL(authorize.headers.get('location')!, svc.url).href);
  return { cookies: [signUp, created].flatMap((page) => page.headers.getSetCookie()).concat(authorize.headers.getSetCookie(), screen.headers.getSetCookie()), screenStatus: screen.status };
}

describe('cookies under the public URL', () => {
  let https: TestService;
  let loopback: TestService;

  beforeAll(async () => {
    [https, loopback] = await Promise.all([startTestService({ publicUrl: 'https://api.example.test' }), startTestService({ publicUrl: 'http://127.0.0.1:8080' })]);
  });
  afterAll(async () => {
    await Promise.all([https?.close(), loopback?.close()]);
  });

  it('an https public URL: every dashboard and OAuth interaction cookie is Secure, over plain HTTP with no X-Forwarded-Proto', async () => {
    const { cookies, screenStatus } = await cookiesOfAFlow(https, 'https://api.example.test');
    expect(cookies.map((line) => line.split('=')[0])).toEqual(expect.arrayContaining(['__Host-svc_form', '__Host-svc_session', '_interaction', '_interaction_resume']));
    expect(cookies.filter((line) => !/;\s*secure(;|$)/i.test(line))).toEqual([]);
    expect(screenStatus).toBe(200);
  });

  it('an http loopback public URL (local development): no cookie is Secure, so the browser keeps them over http', async () => {
    const { cookies, screenStatus } = await cookiesOfAFlow(loopback, 'http://127.0.0.1:8080');
    expect(cookies.map((line) => line.split('=')[0])).toEqual(expect.arrayContaining(['svc_form', 'svc_session', '_interaction', '_interaction_resume']));
    expect(cookies.filter((line) => /secure/i.test(line))).toEqual([]);
    expect(screenStatus).toBe(200);
  });
});
