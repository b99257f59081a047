import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpSignIn, REDIRECT, whoamiCall } from '../support/mcp-sign-in.ts';
import { pkcePair, tokenRequest } from '../support/oauth-client.ts';
import { startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
let workspaceId: string;
let flow: McpSignIn;
const ELSEWHERE = 'https://elsewhere.example/mcp';

beforeAll(async () => {
  svc = await startTestService();
  const { person, workspace } = await svc.service.people.signUp({ email: 'ada@example.com', password: 'correct horse battery', name: 'Ada' });
  workspaceId = workspace.id;
  flow = new McpSignIn(svc.url, { session: (await svc.service.people.startSession(person.id)).token, workspaceId });
});
afterAll(async () => {
  await svc?.close();
});

async function revokedConnections(): Promise<number> {
  const keys = await svc.operator('GET', `/operator/workspaces/${workspaceId}/keys`);
  return (keys.body.data as Array<{ kind: string; revokedAt: string | null }>).filter((key) => key.kind === 'mcp_connection' && key.revokedAt !== null).length;
}

describe('a token request naming another resource (RFC 8707)', () => {
  it('is refused with invalid_target without using the authorization code up', async () => {
    const clientId = await flow.newClient();
    const { verifier, challenge } = pkcePair();
    const code = (await flow.approve(clientId, challenge)).searchParams.get('code')!;
    const exchange = (resource: string[]) => {
      const body = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: clientId, code_verifier: verifier });
      for (const value of resource) body.append('resource', value);
      return fetch(`${svc.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
    };
    for (const resource of [[ELSEWHERE], [`${svc.url}/mcp`, ELSEWHERE]]) {
      const refused = await exchange(resource);
      expect(refused.status, resource.join(' ')).toBe(400);
      expect(refused.headers.get('cache-control')).toBe('no-store');
      expect((await refused.json()).error).toBe('invalid_target');
    }
    const tokens = await exchange([`${svc.url}/mcp`]);
    expect(tokens.status).toBe(200);
    expect((await flow.mcp((await tokens.json()).access_token, whoamiCall)).status).toBe(200);
    expect(await revokedConnections()).toBe(0);
  });

  // oidc-provider's router takes these for the token endpoint too (case-insensitive, one trailing slash dropped).
  for (const path of ['/oauth/token/', '/oauth/TOKEN', '/oauth/Token/']) {
    it(`is refused at ${path} as at /oauth/token, and the code still works`, async () => {
      const clientId = await flow.newClient();
      const { verifier, challenge } = pkcePair();
      const code = (await flow.approve(clientId, challenge)).searchParams.get('code')!;
      const exchange = (at: string, resource: string) =>
        fetch(`${svc.url}${at}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: clientId, code_verifier: verifier, resource }),
        });
      const refused = await exchange(path, ELSEWHERE);
      expect(refused.status).toBe(400);
      expect((await refused.json()).error).toBe('invalid_target');
      const tokens = await exchange('/oauth/token', `${svc.url}/mcp`);
      expect(tokens.status).toBe(200);
      expect(await revokedConnections()).toBe(0);
    });
  }

  it('is readable by a browser page at the public client\'s redirect URI origin, and only there (as oidc-provider answers)', async () => {
    const clientId = await flow.newClient();
    const refusal = (origin: string) =>
      fetch(`${svc.url}/oauth/token`, {
        method: 'POST',
        headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'unknown', client_id: clientId, resource: ELSEWHERE }),
      });
    const allowed = await refusal(new URL(REDIRECT).origin);
    expect(allowed.status).toBe(400);
    expect((await allowed.json()).error).toBe('invalid_target');
    expect(allowed.headers.get('access-control-allow-origin')).toBe(new URL(REDIRECT).origin);
    expect(allowed.headers.get('access-control-expose-headers')).toBe('WWW-Authenticate');
    expect(allowed.headers.get('vary')).toMatch(/origin/i);
    const foreign = await refusal('https://elsewhere.example');
    expect(foreign.status).toBe(400);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    // oidc-provider's own refusal of the same request naming our resource carries the same headers.
    const own = await fetch(`${svc.url}/oauth/token`, {
      method: 'POST',
      headers: { origin: new URL(REDIRECT).origin, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'unknown', client_id: clientId, resource: `${svc.url}/mcp` }),
    });
    expect((await own.json()).error).toBe('invalid_grant');
    expect(own.headers.get('access-control-allow-origin')).toBe(new URL(REDIRECT).origin);
    expect(own.headers.get('access-control-expose-headers')).toBe('WWW-Authenticate');
  });

  it('is refused with invalid_target without rotating the refresh token or ending the connection', async () => {
    const { clientId, tokens } = await flow.signIn();
    const refresh = (refreshToken: string, extra: Record<string, string> = {}) => tokenRequest(svc.url, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId, ...extra });
    const refused = await refresh(tokens.refresh_token, { resource: ELSEWHERE });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_target');
    expect((await flow.mcp(tokens.access_token, whoamiCall)).status).toBe(200);
    // The client's retry with the same refresh token, naming the right resource, then none.
    const named = await refresh(tokens.refresh_token, { resource: `${svc.url}/mcp` });
    expect(named.status, JSON.stringify(named.body)).toBe(200);
    const unnamed = await refresh(named.body.refresh_token);
    expect(unnamed.status, JSON.stringify(unnamed.body)).toBe(200);
    expect((await flow.mcp(unnamed.body.access_token, whoamiCall)).status).toBe(200);
    expect(await revokedConnections()).toBe(0);
  });
});

/** A DPoP proof (RFC 9449) for a POST to `htu`, signed by a new P-256 key. */
function dpopProof(htu: string): string {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { kty, crv, x, y } = publicKey.export({ format: 'jwk' });
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const signed = `${part({ typ: 'dpop+jwt', alg: 'ES256', jwk: { kty, crv, x, y } })}.${part({ htm: 'POST', htu, iat: Math.floor(Date.now() / 1000), jti: randomUUID() })}`;
  return `${signed}.${sign('sha256', Buffer.from(signed), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
}

describe('DPoP (RFC 9449), which /mcp does not verify', () => {
  it('is not offered: a token request carrying a proof gets Bearer tokens that work on /mcp', async () => {
    const clientId = await flow.newClient();
    const { verifier, challenge } = pkcePair();
    const code = (await flow.approve(clientId, challenge)).searchParams.get('code')!;
    const token = (params: Record<string, string>) =>
      fetch(`${svc.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', dpop: dpopProof(`${svc.url}/oauth/token`) }, body: new URLSearchParams({ client_id: clientId, ...params }) });
    const issued = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier });
    expect(issued.status).toBe(200);
    const tokens = await issued.json();
    expect(tokens.token_type).toBe('Bearer');
    expect((await flow.mcp(tokens.access_token, whoamiCall)).status).toBe(200);
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expect(refreshed.status).toBe(200);
    expect((await refreshed.json()).token_type).toBe('Bearer');
  });

  it('is not advertised in the authorization server metadata', async () => {
    const metadata = (await svc.request('GET', '/.well-known/oauth-authorization-server')).body as Record<string, unknown>;
    expect(Object.keys(metadata).filter((name) => name.startsWith('dpop'))).toEqual([]);
  });
});
