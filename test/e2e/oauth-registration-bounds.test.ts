import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_CLIENT_METADATA_BYTES, MAX_REDIRECT_URIS } from '../../oauth-server/client-metadata-bounds.ts';
import { storedId } from '../../adapters/oauth/oauth-model-adapter.ts';
import { McpSignIn, REDIRECT } from '../support/mcp-sign-in.ts';
import { pkcePair, registerClient, tokenRequest } from '../support/oauth-client.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * Open client registration stores every client it accepts: how many redirect URIs and how much metadata one may hold
 * is bounded (oauth-server/client-metadata-bounds.ts; security review F9). A file of its own: registrations count
 * against the address's hourly allowance.
 */
let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.close();
});

const loopback = (n: number) => Array.from({ length: n }, (_, i) => `http://127.0.0.1:${10_000 + i}/callback`);
const register = (redirectUris: string[], extra: Record<string, unknown> = {}) =>
  registerClient(svc.url, { client_name: 'Agent', redirect_uris: redirectUris, grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none', ...extra });
const clients = async () =>
  (await svc.service.orm.em.getConnection().execute<{ n: number }[]>(`select count(*)::int as "n" from "oauth_model" where "kind" = 'Client'`))[0].n;

describe('client registration bounds', () => {
  it(`refuses more than ${MAX_REDIRECT_URIS} redirect URIs with invalid_redirect_uri, storing nothing; accepts ${MAX_REDIRECT_URIS}`, async () => {
    const before = await clients();
    // The review's registration: 1,000 loopback URIs, 28 KB, was 201 and a row of its own.
    for (const n of [1_000, MAX_REDIRECT_URIS + 1]) {
      const res = await register(loopback(n));
      expect(res.status, String(n)).toBe(400);
      expect(res.body, String(n)).toEqual({ error: 'invalid_redirect_uri', error_description: `redirect_uris: at most ${MAX_REDIRECT_URIS} may be registered, not ${n}` });
    }
    expect(await clients()).toBe(before);
    const accepted = await register(loopback(MAX_REDIRECT_URIS));
    expect(accepted.status).toBe(201);
    expect(accepted.body.redirect_uris).toHaveLength(MAX_REDIRECT_URIS);
  });

  it(`refuses metadata larger than ${MAX_CLIENT_METADATA_BYTES} bytes as JSON with invalid_client_metadata, storing nothing`, async () => {
    const before = await clients();
    const res = await register(loopback(1), { client_name: 'x'.repeat(MAX_CLIENT_METADATA_BYTES) });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_client_metadata');
    expect(res.body.error_description).toMatch(new RegExp(`^the client metadata takes \\d+ bytes as JSON; at most ${MAX_CLIENT_METADATA_BYTES} may be registered$`));
    // Long redirect URIs count too.
    const long = await register(loopback(MAX_REDIRECT_URIS).map((uri) => `${uri}/${'p'.repeat(1_000)}`));
    expect(long.status).toBe(400);
    expect(long.body.error).toBe('invalid_client_metadata');
    expect(await clients()).toBe(before);
  });

  it('is not checked on a stored client: one an earlier version accepted with 1,000 redirect URIs keeps refreshing and signing in', async () => {
    const { person, workspace } = await svc.service.people.signUp({ email: 'ada@example.com', password: 'correct horse battery', name: 'Ada' });
    const flow = new McpSignIn(svc.url, { session: (await svc.service.people.startSession(person.id)).token, workspaceId: workspace.id });
    const { clientId, tokens } = await flow.signIn();
    // As stored before the bounds: over both (1,000 URIs, ~28 KB as JSON).
    await svc.service.orm.em.getConnection().execute(`update "oauth_model" set "payload" = jsonb_set("payload", '{redirect_uris}', ?::jsonb) where "kind" = 'Client' and "id" = ?`, [
      JSON.stringify([REDIRECT, ...loopback(999)]),
      storedId('Client', clientId),
    ]);
    const refreshed = await tokenRequest(svc.url, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientId, resource: `${svc.url}/mcp` });
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    const res = await fetch(flow.authorizeUrl(clientId, pkcePair().challenge), { redirect: 'manual' });
    expect(res.status).toBe(303);
  });
});
