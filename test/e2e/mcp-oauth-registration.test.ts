import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { McpSignIn } from '../support/mcp-sign-in.ts';
import { pkcePair, registerClient } from '../support/oauth-client.ts';
import { storedId } from '../../adapters/oauth/oauth-model-adapter.ts';
import { startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
let flow: McpSignIn;

beforeAll(async () => {
  svc = await startTestService();
  const { person, workspace } = await svc.service.people.signUp({ email: 'ada@example.com', password: 'correct horse battery', name: 'Ada' });
  flow = new McpSignIn(svc.url, { session: (await svc.service.people.startSession(person.id)).token, workspaceId: workspace.id });
});
afterAll(async () => {
  await svc?.close();
});

const register = (redirectUris: string[], extra: Record<string, unknown> = {}) =>
  registerClient(svc.url, { client_name: 'Agent', redirect_uris: redirectUris, grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none', ...extra });

describe('client registration (RFC 7591) redirect URIs', () => {
  it('refuses plain http off loopback, wildcards and schemes that are no app’s own, with invalid_redirect_uri', async () => {
    const refused = [
      ['http://evil.example/cb'],
      ['http://127.0.0.1.evil.example/cb'],
      ['https://*.example.com/cb'],
      ['https://app.example.com/*'],
      ['http://127.0.0.1:8080/cb', 'http://evil.example/cb'],
      ['javascript:alert(1)'],
      ['data:text/html,hi'],
    ];
    for (const uris of refused) {
      for (const applicationType of [{}, { application_type: 'native' }]) {
        const res = await register(uris, applicationType);
        expect(res.status, `${uris.join(' ')} ${JSON.stringify(applicationType)}`).toBe(400);
        expect(res.body.error, uris.join(' ')).toBe('invalid_redirect_uri');
      }
    }
  });

  // Each spelling is in test/unit/redirect-uri-policy.test.ts; here two, as a client sends them (registrations count
  // against the address's hourly allowance).
  it('refuses a URI the check would read one way and the browser another, and one hiding a user name', async () => {
    for (const uri of ['http://localhost\\@evil.example/cb', 'http://evil.example@127.0.0.1/cb']) {
      const res = await register([uri]);
      expect(res.status, uri).toBe(400);
      expect(res.body.error, uri).toBe('invalid_redirect_uri');
    }
  });

  it('accepts what MCP clients register: https, http on a loopback host, an app’s own scheme (as web or native)', async () => {
    const accepted: Array<[string, string[], Record<string, unknown>]> = [
      ['Claude', ['https://claude.ai/api/mcp/auth_callback'], {}],
      ['Claude Code', ['http://localhost:54212/callback'], {}],
      ['VS Code', ['http://127.0.0.1:33418/', 'https://vscode.dev/redirect'], {}],
      ['MCP Inspector', ['http://localhost:6274/oauth/callback'], {}],
      ['IPv6 loopback', ['http://[::1]:8976/callback'], { application_type: 'native' }],
      ['Cursor', ['cursor://anysphere.cursor-mcp/oauth/callback'], { application_type: 'web' }],
      ['Cursor, three URIs', ['cursor://anysphere.cursor-mcp/oauth/callback', 'https://www.cursor.com/agents/mcp/oauth/callback', 'http://localhost:8787/callback'], {}],
      ['reverse-domain app', ['com.example.agent:/oauth/callback'], { application_type: 'native' }],
      ['an origin without a path', ['https://agent.example.com'], {}],
    ];
    for (const [name, uris, extra] of accepted) {
      const res = await register(uris, extra);
      expect(res.status, `${name}: ${JSON.stringify(res.body)}`).toBe(201);
      expect(res.body.redirect_uris).toEqual(uris);
    }
  });

  it('lets a client registered with an app scheme start the sign-in there', async () => {
    const cursor = 'cursor://anysphere.cursor-mcp/oauth/callback';
    const registered = await register([cursor], { application_type: 'web' });
    expect(registered.status).toBe(201);
    const res = await fetch(flow.authorizeUrl(registered.body.client_id, pkcePair().challenge, { redirect_uri: cursor }), { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toMatch(/^\/oauth\/interaction\//);
  });

  it('is checked on stored clients too: one registered before with a URI now refused cannot start a sign-in', async () => {
    const registered = await register(['https://agent.example/cb']);
    expect(registered.status).toBe(201);
    const clientId = registered.body.client_id as string;
    // What an earlier version accepted: plain http off loopback.
    await svc.service.orm.em.getConnection().execute(`update "oauth_model" set "payload" = jsonb_set("payload", '{redirect_uris}', '["http://evil.example/cb"]') where "kind" = 'Client' and "id" = ?`, [storedId('Client', clientId)]);
    const res = await fetch(flow.authorizeUrl(clientId, pkcePair().challenge, { redirect_uri: 'http://evil.example/cb' }), { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    // Refused by the policy, not for some other reason (an unknown client, a mismatched URI).
    expect(await res.text()).toContain('invalid_redirect_uri: redirect_uris: http://evil.example/cb may use http only on a loopback host');
  });
});

describe('the registration access token (RFC 7592 client read)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });
  const read = (clientId: string, token: string) => fetch(`${svc.url}/oauth/register/${clientId}`, { headers: { authorization: `Bearer ${token}` } });

  it('reads the client for 30 days after registration, then is refused as invalid_token', async () => {
    // oidc-provider checks expiry against Date and the storage adapter against the service's clock (Date by default):
    // only Date is faked, so both read the moved time.
    const start = Date.now();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(start);
    const registered = await register(['https://agent.example/cb']);
    expect(registered.status).toBe(201);
    const { client_id: clientId, registration_access_token: token } = registered.body as { client_id: string; registration_access_token: string };
    expect((await read(clientId, token)).status).toBe(200);
    // Its row ends then too, so housekeeping deletes it (sweepExpiredOAuthModels) whether or not the client stays.
    const [row] = await svc.service.orm.em.getConnection().execute<{ expires_at: Date | string }[]>(
      `select "expires_at" from "oauth_model" where "kind" = 'RegistrationAccessToken' and "id" = ?`, [storedId('RegistrationAccessToken', token)], 'all');
    expect(Math.abs(new Date(row.expires_at).getTime() - (start + 30 * 86_400_000))).toBeLessThan(5_000);
    vi.setSystemTime(start + 30 * 86_400_000 - 60_000);
    const late = await read(clientId, token);
    expect(late.status).toBe(200);
    expect((await late.json()).client_id).toBe(clientId);
    // Before: read the client (and a confidential one's secret) for as long as the client existed.
    vi.setSystemTime(start + 30 * 86_400_000 + 60_000);
    const expired = await read(clientId, token);
    expect(expired.status).toBe(401);
    expect(await expired.json()).toMatchObject({ error: 'invalid_token' });
  });
});
