import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpSignIn, REDIRECT } from '../support/mcp-sign-in.ts';
import { pkcePair, registerClient, tokenRequest } from '../support/oauth-client.ts';
import { startTestService, type TestService } from '../support/service.ts';

/** OAuth parameters holding U+0000 (which the database cannot store) get the RFCs' errors, never a 500. */

let svc: TestService;
let flow: McpSignIn;

beforeAll(async () => {
  svc = await startTestService();
  const { person, workspace } = await svc.service.people.signUp({ email: 'nul@example.com', password: 'correct horse battery', name: 'Nul' });
  flow = new McpSignIn(svc.url, { session: (await svc.service.people.startSession(person.id)).token, workspaceId: workspace.id });
});
afterAll(async () => {
  await svc?.close();
});

const metadata = { redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };

describe('OAuth parameters holding U+0000', () => {
  it('registration answers 400 invalid_client_metadata naming the member (RFC 7591 3.2.2)', async () => {
    for (const extra of [{ client_name: 'Age\u0000nt' }, { client_uri: 'https://agent.example/\u0000' }, { client_name: 'lone \ud800 surrogate' }]) {
      const res = await registerClient(svc.url, { ...metadata, ...extra });
      expect(res.status, JSON.stringify(extra)).toBe(400);
      expect(res.body).toMatchObject({ error: 'invalid_client_metadata', error_description: `${Object.keys(extra)[0]} must not contain U+0000 or a lone surrogate` });
    }
  });

  it('authorization sends invalid_request back to the client’s redirect URI, with its state', async () => {
    const clientId = await flow.newClient();
    const res = await fetch(flow.authorizeUrl(clientId, pkcePair().challenge, { state: 'st\u0000te' }), { redirect: 'manual' });
    expect(res.status).toBe(303);
    const back = new URL(res.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(back.searchParams.get('error')).toBe('invalid_request');
    expect(back.searchParams.get('state')).toBe('st\u0000te');
  });

  it('a client id, code or refresh token holding it names nothing: the usual invalid_client and invalid_grant', async () => {
    const clientId = await flow.newClient();
    const unknownClient = await fetch(flow.authorizeUrl('client\u0000id', pkcePair().challenge), { redirect: 'manual' });
    expect(unknownClient.status).toBe(400);
    expect(await unknownClient.text()).toContain('invalid_client');
    const { verifier } = pkcePair();
    const code = await tokenRequest(svc.url, { grant_type: 'authorization_code', client_id: clientId, code: 'co\u0000de', redirect_uri: REDIRECT, code_verifier: verifier });
    expect(code).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const refresh = await tokenRequest(svc.url, { grant_type: 'refresh_token', client_id: 'client\u0000id', refresh_token: 'x' });
    expect(refresh).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
  });
});
