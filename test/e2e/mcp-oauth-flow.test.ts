import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedId } from '../../adapters/oauth/oauth-model-adapter.ts';
import { REGISTRATIONS_PER_HOUR } from '../../adapters/oauth/registration-limit.ts';
import { McpSignIn, REDIRECT, whoamiCall } from '../support/mcp-sign-in.ts';
import { browse, CookieJar, pkcePair, tokenRequest } from '../support/oauth-client.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { logStatements } from '../support/statements.ts';

let svc: TestService;
let workspaceId: string;
let personId: string;
/** Ada's dashboard session: the browser's cookie. */
let session: string;
let flow: McpSignIn;

beforeAll(async () => {
  svc = await startTestService();
  const { person, workspace } = await svc.service.people.signUp({ email: 'ada@example.com', password: 'correct horse battery', name: 'Ada' });
  workspaceId = workspace.id;
  personId = person.id;
  session = (await svc.service.people.startSession(person.id)).token;
  flow = new McpSignIn(svc.url, { session, workspaceId });
});
afterAll(async () => {
  await svc?.close();
});

describe('MCP sign-in, by hand over HTTP', () => {
  it('approves, redirects back with code, state and iss (RFC 9207), and issues tokens for /mcp', async () => {
    const { back, tokens } = await flow.signIn();
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get('state')).toBe('st4te');
    expect(back.searchParams.get('iss')).toBe(svc.url);
    expect(tokens.token_type).toBe('Bearer');
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const res = await flow.mcp(tokens.access_token, whoamiCall);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain(workspaceId);
  });
});

describe('the authorization server’s session', () => {
  it('is stored under a hash of its id, as tokens are, and the sign-in it belongs to completes', async () => {
    const clientId = await flow.newClient();
    const { verifier, challenge } = pkcePair();
    const begun = await flow.beginApproval(clientId, challenge);
    const back = await flow.finishApproval(begun);
    const tokens = await tokenRequest(svc.url, { grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: REDIRECT, client_id: clientId, code_verifier: verifier, resource: `${svc.url}/mcp` });
    expect(tokens.status).toBe(200);
    expect((await flow.mcp(tokens.body.access_token, whoamiCall)).status).toBe(200);

    const sessionId = begun.jar.get('_session');
    expect(sessionId).toEqual(expect.any(String));
    const connection = svc.service.orm.em.getConnection();
    const clearRows = async (id: string | undefined) =>
      (await connection.execute<Array<{ n: number }>>(`select count(*)::int as "n" from "oauth_model" where "id" = ? or "payload"::text like ?`, [id, `%${id}%`]))[0].n;
    expect(await clearRows(sessionId)).toBe(0);
    const stored = await connection.execute<Array<{ id: string }>>(`select "id" from "oauth_model" where "kind" = 'Session' and "id" = ?`, [storedId('Session', sessionId!)]);
    expect(stored).toHaveLength(1);
    expect(stored[0].id).not.toBe(sessionId);

    // A second client authorized from the same signed-in browser: its interaction is stored with the session's account
    // (oidc-provider copies the session id into it too), and the raw id is still nowhere.
    const second = pkcePair();
    const again = await browse(begun.jar, flow.authorizeUrl(await flow.newClient(), second.challenge));
    expect(again.status).toBe(303);
    const interaction = new URL(again.headers.get('location')!, svc.url).href;
    const signedIn = await connection.execute<Array<{ n: number }>>(`select count(*)::int as "n" from "oauth_model" where "kind" = 'Interaction' and "payload"->'session'->>'accountId' is not null`);
    expect(signedIn[0].n).toBeGreaterThan(0);
    expect(await clearRows(sessionId)).toBe(0);
    const backAgain = await flow.finishApproval({ jar: begun.jar, interaction });
    expect(backAgain.searchParams.get('code')).toEqual(expect.any(String));
    // The sign-in may give the browser a new session id: neither is stored in the clear.
    const sessionNow = begun.jar.get('_session');
    expect(sessionNow).toEqual(expect.any(String));
    expect([await clearRows(sessionId), await clearRows(sessionNow)]).toEqual([0, 0]);
  });
});

describe('discovery documents', () => {
  it('serve RFC 9728 protected resource metadata at the path-aware and the root form', async () => {
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const res = await svc.request('GET', path);
      expect(res.status, path).toBe(200);
      expect(res.body.resource).toBe(`${svc.url}/mcp`);
      expect(res.body.authorization_servers).toEqual([svc.url]);
      expect(res.body.scopes_supported).toContain('monitors:write');
    }
  });

  it('serve RFC 8414 and OpenID discovery: S256 only, iss parameter, registration and client ID metadata documents', async () => {
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const res = await svc.request('GET', path);
      expect(res.status, path).toBe(200);
      expect(res.body.issuer).toBe(svc.url);
      expect(res.body.authorization_endpoint).toBe(`${svc.url}/oauth/authorize`);
      expect(res.body.token_endpoint).toBe(`${svc.url}/oauth/token`);
      expect(res.body.registration_endpoint).toBe(`${svc.url}/oauth/register`);
      expect(res.body.code_challenge_methods_supported).toEqual(['S256']);
      expect(res.body.authorization_response_iss_parameter_supported).toBe(true);
      expect(res.body.client_id_metadata_document_supported).toBe(true);
      // OAuth 2.1: the authorization code flow only, nothing the implicit or hybrid flows need.
      expect(res.body.response_types_supported).toEqual(['code']);
      expect(res.body.grant_types_supported).not.toContain('implicit');
    }
    const hybrid = await fetch(`${svc.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Hybrid', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', response_types: ['code id_token'], grant_types: ['authorization_code', 'implicit'] }),
    });
    expect(hybrid.status).toBe(400);
    expect(((await hybrid.json()) as { error: string }).error).toBe('invalid_client_metadata');
  });

  it('advertise only endpoints that answer: each, asked the way its clients ask it, is not a 404 (no PAR, no end-session)', async () => {
    const metadata = (await svc.request('GET', '/.well-known/oauth-authorization-server')).body as Record<string, unknown>;
    const endpoints = Object.entries(metadata).filter(([name]) => name.endsWith('_endpoint') || name === 'jwks_uri') as Array<[string, string]>;
    expect(endpoints.map(([name]) => name).sort()).toEqual(['authorization_endpoint', 'jwks_uri', 'registration_endpoint', 'revocation_endpoint', 'token_endpoint']);
    const getOnly = new Set(['authorization_endpoint', 'jwks_uri']);
    for (const [name, url] of endpoints) {
      const res = await fetch(url, getOnly.has(name) ? { redirect: 'manual' } : { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(res.status, `${name} ${url}`).not.toBe(404);
    }
  });

  it('answer an unauthenticated /mcp call with 401 and a challenge naming the metadata and the scopes', async () => {
    const res = await fetch(`${svc.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(whoamiCall) });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${svc.url}/.well-known/oauth-protected-resource/mcp", scope="read:social usage:read"`);
    expect((await res.json()).error.code).toBe('unauthenticated');
  });

  it('answer an unknown token with 401 invalid_token and the same pointers', async () => {
    const res = await flow.mcp('not-a-real-token-0123456789', whoamiCall);
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate')!;
    expect(challenge).toContain('error="invalid_token"');
    expect(challenge).toContain(`resource_metadata="${svc.url}/.well-known/oauth-protected-resource/mcp"`);
  });
});

describe('the authorization endpoint refuses', () => {
  it('a request without PKCE, and the plain method', async () => {
    const clientId = await flow.newClient();
    const { challenge } = pkcePair();
    for (const extra of [{ code_challenge: '', code_challenge_method: '' }, { code_challenge: challenge, code_challenge_method: 'plain' }]) {
      const url = new URL(flow.authorizeUrl(clientId, challenge));
      for (const [name, value] of Object.entries(extra)) {
        if (value) url.searchParams.set(name, value);
        else url.searchParams.delete(name);
      }
      const res = await fetch(url, { redirect: 'manual' });
      expect(res.status).toBe(303);
      const back = new URL(res.headers.get('location')!);
      expect(back.origin + back.pathname).toBe(REDIRECT);
      expect(back.searchParams.get('error')).toBe('invalid_request');
      expect(back.searchParams.get('error_description')).toMatch(/PKCE|code_challenge/);
    }
  });

  it('a redirect URI that is not exactly a registered one (never redirecting to it)', async () => {
    const clientId = await flow.newClient();
    const { challenge } = pkcePair();
    for (const redirect of [`${REDIRECT}/extra`, 'http://127.0.0.1:53683/callback', `${REDIRECT}?x=1`]) {
      const url = new URL(flow.authorizeUrl(clientId, challenge));
      url.searchParams.set('redirect_uri', redirect);
      const res = await fetch(url, { redirect: 'manual' });
      expect(res.status, redirect).toBe(400);
      expect(await res.text()).toContain('redirect_uri');
    }
  });

  it('a resource other than this service’s /mcp (RFC 8707)', async () => {
    const clientId = await flow.newClient();
    const { challenge } = pkcePair();
    const res = await fetch(flow.authorizeUrl(clientId, challenge, { resource: 'https://elsewhere.example/mcp' }), { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('invalid_target');
  });

  it('reports a denial to the client as access_denied', async () => {
    const clientId = await flow.newClient();
    const { challenge } = pkcePair();
    const jar = new CookieJar();
    jar.set('svc_session', session);
    const interaction = new URL((await browse(jar, flow.authorizeUrl(clientId, challenge))).headers.get('location')!, svc.url).href;
    const denied = await browse(jar, interaction, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ decision: 'deny', workspaceId }) });
    const back = new URL((await browse(jar, new URL(denied.headers.get('location')!, svc.url).href)).headers.get('location')!);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('iss')).toBe(svc.url);
  });

  it('sends a browser that is not signed in to the dashboard’s sign-in, coming back to the same screen', async () => {
    const clientId = await flow.newClient();
    const { challenge } = pkcePair();
    const jar = new CookieJar();
    const interaction = new URL((await browse(jar, flow.authorizeUrl(clientId, challenge))).headers.get('location')!, svc.url);
    const res = await browse(jar, interaction.href);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/dashboard/sign-in?next=${encodeURIComponent(interaction.pathname)}`);
  });
});

describe('signing out of the dashboard', () => {
  it('ends the authorization server’s session too: authorizing an approved client again asks for sign-in, no code', async () => {
    const own = (await svc.service.people.startSession(personId)).token;
    const clientId = await flow.newClient();
    const begun = await flow.beginApproval(clientId, pkcePair().challenge, { session: own });
    const back = await flow.finishApproval(begun);
    expect(back.searchParams.get('code')).toEqual(expect.any(String));
    // Before sign-out the same browser gets a code at once, without any screen: the session and the grant are reused.
    const silent = await browse(begun.jar, flow.authorizeUrl(clientId, pkcePair().challenge));
    expect(new URL(silent.headers.get('location')!, svc.url).searchParams.get('code')).toEqual(expect.any(String));

    const page = await browse(begun.jar, `${svc.url}/dashboard/workspaces`);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())![1];
    const out = await browse(begun.jar, `${svc.url}/dashboard/sign-out`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrf }) });
    expect([out.status, out.headers.get('location')]).toEqual([303, '/dashboard/sign-in']);
    expect(begun.jar.get('_session')).toEqual(expect.any(String));

    const again = await browse(begun.jar, flow.authorizeUrl(clientId, pkcePair().challenge));
    expect(again.status).toBe(303);
    const next = new URL(again.headers.get('location')!, svc.url);
    expect(next.searchParams.get('code')).toBeNull();
    expect(next.pathname).toMatch(/^\/oauth\/interaction\//);
    const screen = await browse(begun.jar, next.href);
    expect(screen.status).toBe(303);
    expect(screen.headers.get('location')).toBe(`/dashboard/sign-in?next=${encodeURIComponent(next.pathname)}`);
  });
});

describe('a connection', () => {
  it('is listed with the workspace’s keys as `<client> (MCP)`, with the scopes approved', async () => {
    await flow.signIn();
    const keys = await svc.operator('GET', `/operator/workspaces/${workspaceId}/keys`);
    const connection = keys.body.data.find((key: { kind: string }) => key.kind === 'mcp_connection');
    expect(connection).toMatchObject({ name: 'Test Agent (MCP)', scopes: ['read:social', 'usage:read'], revokedAt: null });
    // It ends with its grant, 30 days after its newest refresh token (here the code exchange's) unless refreshed.
    const endsIn = Date.parse(connection.expiresAt) - Date.now();
    expect(endsIn).toBeGreaterThan(29 * 86_400_000);
    expect(endsIn).toBeLessThanOrEqual(30 * 86_400_000);
  });

  it('is billed as a principal of its workspace', async () => {
    const { tokens } = await flow.signIn();
    const { key } = await svc.newKey({ workspaceId });
    const before = (await svc.request('GET', '/v1/usage', { key })).body.data.balance;
    const res = await flow.mcp(tokens.access_token, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_microblog_user', arguments: { user: 'simdevs' } } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-credits-charged')).toBe('3');
    await res.text();
    expect((await svc.request('GET', '/v1/usage', { key })).body.data.balance).toBe(before - 3);
  });

  it('gets a 403 insufficient_scope naming the scope for a monitor tool it was not granted, and the tool when ticked', async () => {
    const plain = await flow.signIn();
    const create = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'list_monitors', arguments: {} } };
    const refused = await flow.mcp(plain.tokens.access_token, create);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    expect(refused.headers.get('www-authenticate')).toContain('scope="monitors:read"');
    expect((await refused.json()).error.code).toBe('insufficient_scope');

    const ticked = await flow.signIn({ monitors: 'on' });
    const allowed = await flow.mcp(ticked.tokens.access_token, create);
    expect(allowed.status).toBe(200);
    expect(await allowed.text()).not.toContain('"isError":true');
  });

  it('is refused on /v1 and /graphql: its token is for /mcp only (no passthrough)', async () => {
    const { tokens } = await flow.signIn();
    expect((await svc.request('GET', '/v1/whoami', { key: tokens.access_token })).status).toBe(401);
    expect((await svc.graphql('{ whoami { keyId } }', undefined, tokens.access_token)).status).toBe(401);
  });

  it('refuses a token whose audience is another resource', async () => {
    const { tokens } = await flow.signIn();
    await svc.service.orm.em.getConnection().execute(`update "oauth_model" set "payload" = jsonb_set("payload", '{aud}', '"https://elsewhere.example/mcp"') where "kind" = 'AccessToken' and "id" = ?`, [storedId('AccessToken', tokens.access_token)]);
    const res = await flow.mcp(tokens.access_token, whoamiCall);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('keeps no token in the clear at rest: only hashes, as for API keys', async () => {
    const { tokens } = await flow.signIn();
    const rows = await svc.service.orm.em.getConnection().execute<Array<{ n: number }>>(
      `select count(*)::int as "n" from "oauth_model" where "id" in (?, ?) or "payload"::text like ? or "payload"::text like ?`,
      [tokens.access_token, tokens.refresh_token, `%${tokens.access_token}%`, `%${tokens.refresh_token}%`],
    );
    expect(rows[0].n).toBe(0);
    const hashed = await svc.service.orm.em.getConnection().execute<Array<{ n: number }>>(`select count(*)::int as "n" from "oauth_model" where "id" in (?, ?)`, [
      storedId('AccessToken', tokens.access_token),
      storedId('RefreshToken', tokens.refresh_token),
    ]);
    expect(hashed[0].n).toBe(2);
  });

  it('rotates its refresh token: the new one works, the old one is refused', async () => {
    const { clientId, tokens } = await flow.signIn();
    const refreshed = await tokenRequest(svc.url, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientId });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(tokens.refresh_token);
    expect((await flow.mcp(refreshed.body.access_token, whoamiCall)).status).toBe(200);
    const replayed = await tokenRequest(svc.url, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientId });
    expect(replayed.status).toBe(400);
    expect(replayed.body.error).toBe('invalid_grant');
  });

  it('is disconnected at once when revoked: the next call is 401 and its refresh token is refused', async () => {
    const { clientId, tokens } = await flow.signIn();
    expect((await flow.mcp(tokens.access_token, whoamiCall)).status).toBe(200);
    const keys = await svc.operator('GET', `/operator/workspaces/${workspaceId}/keys`);
    const live = keys.body.data.filter((key: { kind: string; revokedAt: string | null }) => key.kind === 'mcp_connection' && key.revokedAt === null);
    for (const connection of live) expect((await svc.operator('POST', `/operator/keys/${connection.keyId}/revoke`)).status).toBe(200);
    const res = await flow.mcp(tokens.access_token, whoamiCall);
    expect(res.status).toBe(401);
    expect((await res.json()).error.message).toContain('revoked');
    const refresh = await tokenRequest(svc.url, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientId });
    expect(refresh.body.error).toBe('invalid_grant');
  });

  it('is authenticated from the key cache once known: later calls read neither its token nor its connection', async () => {
    const { tokens } = await flow.signIn();
    const log = logStatements(svc);
    try {
      expect((await flow.mcp(tokens.access_token, whoamiCall)).status).toBe(200);
      const from = log.texts.length;
      for (let i = 0; i < 3; i++) expect((await flow.mcp(tokens.access_token, whoamiCall)).status).toBe(200);
      expect(log.texts.slice(from).filter((sql) => sql.includes('"oauth_model" m join "api_key" k'))).toEqual([]);
    } finally {
      log.stop();
    }
  });

  it('refuses a cached access token on the next call once its client revoked it (RFC 7009)', async () => {
    const { clientId, tokens } = await flow.signIn();
    for (let i = 0; i < 2; i++) expect((await flow.mcp(tokens.access_token, whoamiCall)).status).toBe(200);
    // Another client cannot revoke it: answered 200 as RFC 7009 asks, and the token stays good.
    const stranger = await flow.newClient();
    const notTheirs = await fetch(`${svc.url}/oauth/revoke`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token: tokens.access_token, client_id: stranger }) });
    expect(notTheirs.status).toBe(200);
    expect((await flow.mcp(tokens.access_token, whoamiCall)).status).toBe(200);
    const revoked = await fetch(`${svc.url}/oauth/revoke`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token: tokens.access_token, token_type_hint: 'access_token', client_id: clientId }) });
    expect(revoked.status).toBe(200);
    const refused = await flow.mcp(tokens.access_token, whoamiCall);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('invalid_token');
  });

  it('shares its workspace’s rate limit with the workspace’s keys', async () => {
    const { person, workspace } = await svc.service.people.signUp({ email: 'bob@example.com', password: 'another long password', name: 'Bob' });
    const bob = { session: (await svc.service.people.startSession(person.id)).token };
    const { tokens } = await flow.signIn({ workspaceId: workspace.id }, bob);
    const { key } = await svc.newKey({ workspaceId: workspace.id });
    // The free tier's 60 a minute, spent by the key (whoami weighs 1; bounded loop)...
    let status = 200;
    for (let i = 0; i < 80 && status === 200; i++) status = (await svc.request('GET', '/v1/whoami', { key })).status;
    expect(status).toBe(429);
    // ...is spent for the connection too (on MCP a refusal is a tool result with isError, as for a key).
    const text = await (await flow.mcp(tokens.access_token, whoamiCall)).text();
    expect(text).toContain('"isError":true');
    expect(text).toContain('rate_limited');
  });

  it('ends when its client revokes its refresh token (RFC 7009): shown revoked in the key list, its access token refused', async () => {
    const live = async () =>
      ((await svc.operator('GET', `/operator/workspaces/${workspaceId}/keys`)).body.data as Array<{ kind: string; revokedAt: string | null }>).filter((key) => key.kind === 'mcp_connection' && key.revokedAt === null).length;
    const before = await live();
    const { clientId, tokens } = await flow.signIn();
    expect(await live()).toBe(before + 1);
    const revoked = await fetch(`${svc.url}/oauth/revoke`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token: tokens.refresh_token, client_id: clientId }) });
    expect(revoked.status).toBe(200);
    expect((await flow.mcp(tokens.access_token, whoamiCall)).status).toBe(401);
    expect(await live()).toBe(before);
  });

  it('leaves API keys working on /mcp', async () => {
    const { key } = await svc.newKey({ workspaceId });
    expect((await flow.mcp(key, whoamiCall)).status).toBe(200);
  });
});

// Last in this file: it spends this address's registrations for the hour.
describe('the authorization server’s keys', () => {
  it('are not kept in the database: a read of it gives no signing or cookie key', async () => {
    const rows = await svc.service.orm.em.getConnection().execute(`select "kind" from "oauth_model" where "kind" = 'ServerKeys'`);
    expect(rows).toEqual([]);
  });

  it('survive a restart: tokens issued before it still work, and a sign-in begun before it completes after it', async () => {
    const before = await flow.signIn();
    const jwks = (await svc.request('GET', '/oauth/jwks')).body;
    const clientId = await flow.newClient();
    const { verifier, challenge } = pkcePair();
    // The approval screen is bound to the browser by the authorization server's signed cookies.
    const begun = await flow.beginApproval(clientId, challenge);
    await svc.restart();
    expect((await svc.request('GET', '/oauth/jwks')).body).toEqual(jwks);
    expect((await flow.mcp(before.tokens.access_token, whoamiCall)).status).toBe(200);
    const refreshed = await tokenRequest(svc.url, { grant_type: 'refresh_token', refresh_token: before.tokens.refresh_token, client_id: before.clientId });
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    const back = await flow.finishApproval(begun);
    const tokens = await tokenRequest(svc.url, { grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: REDIRECT, client_id: clientId, code_verifier: verifier, resource: `${svc.url}/mcp` });
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    expect((await flow.mcp(tokens.body.access_token, whoamiCall)).status).toBe(200);
  });
});

describe('the approval form', () => {
  it('is refused with 413 and the connection closed on a declared length over its limit, before any of the body arrives', async () => {
    const { jar, interaction } = await flow.beginApproval(await flow.newClient(), pkcePair().challenge);
    const answer = await new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
      const headers = { cookie: jar.header(interaction), 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(64 * 1024) };
      const req = request(interaction, { method: 'POST', headers }, (res) => {
        res.resume();
        resolve({ status: res.statusCode!, connection: res.headers.connection });
        req.destroy();
      });
      req.on('error', reject);
      // The headers alone: the body never comes, so only the declared length can be answered.
      req.flushHeaders();
    });
    // Closed rather than kept alive, which would make node read and discard the declared body.
    expect(answer).toEqual({ status: 413, connection: 'close' });
  });
});

describe('open client registration', () => {
  // oidc-provider's router registers at each of these spellings (case-insensitive, one trailing slash dropped).
  const spellings = ['/oauth/register', '/oauth/register/', '/oauth/REGISTER', '/oauth/Register/'];
  const register = (path: string, i: number) =>
    fetch(`${svc.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: `Flood ${i}`, redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }) });

  it('is bounded per address, whichever path spelling is used: past the hourly allowance, 429 with Retry-After and nothing registered', async () => {
    let refused: Response | undefined;
    let registered = 0;
    for (let i = 0; i <= REGISTRATIONS_PER_HOUR && !refused; i++) {
      const res = await register(spellings[i % spellings.length], i);
      if (res.status === 429) refused = res;
      else {
        expect(res.status).toBe(201);
        registered++;
      }
    }
    expect(registered).toBeLessThanOrEqual(REGISTRATIONS_PER_HOUR);
    expect(refused?.status).toBe(429);
    expect(Number(refused!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await refused!.json()).error).toBe('slow_down');
    for (const path of spellings) expect((await register(path, 0)).status, path).toBe(429);
  });
});
