import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalPeople } from '../../oauth-server/approval-people.ts';
import { browse, CookieJar, pkcePair, registerClient, tokenRequest } from '../support/oauth-client.ts';
import { startTestService, type TestService } from '../support/service.ts';

/** The approval screen's people, standing in for the dashboard's sessions: the cookie `test_person` names who is signed in. */
const signedIn = new Map<string, { personId: string; email: string; workspaces: Array<{ id: string; name: string }> }>();
const people: ApprovalPeople = {
  async signedIn(req) {
    const id = /(?:^|; )test_person=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
    const person = id ? signedIn.get(id) : undefined;
    return person ? { personId: person.personId, email: person.email } : null;
  },
  signInUrl: (next) => `/dashboard/sign-in?next=${encodeURIComponent(next)}`,
  workspacesOf: async (personId) => [...signedIn.values()].find((person) => person.personId === personId)?.workspaces ?? [],
};

let svc: TestService;
let workspaceId: string;
let personId: string;
const REDIRECT = 'http://127.0.0.1:53682/callback';

beforeAll(async () => {
  svc = await startTestService({ approvalPeople: people });
  const person = await svc.service.identity.createPerson({ email: 'ada@example.com', name: 'Ada' });
  const workspace = await svc.service.identity.createWorkspace({ name: 'Ada’s research', ownerPersonId: person.id });
  personId = person.id;
  workspaceId = workspace.id;
  signedIn.set('ada', { personId, email: person.email, workspaces: [{ id: workspace.id, name: workspace.name }] });
});
afterAll(async () => {
  await svc?.close();
});

async function newClient(): Promise<string> {
  const registered = await registerClient(svc.url, { client_name: 'Test Agent', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' });
  expect(registered.status, JSON.stringify(registered.body)).toBe(201);
  return registered.body.client_id;
}

function authorizeUrl(clientId: string, challenge: string, extra: Record<string, string> = {}): string {
  return `${svc.url}/oauth/authorize?${new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'st4te',
    scope: 'read:social usage:read',
    resource: `${svc.url}/mcp`,
    ...extra,
  })}`;
}

/** Signs in as Ada, approves on the screen, and returns the redirect back to the client. */
async function approve(clientId: string, challenge: string, form: Record<string, string> = {}): Promise<URL> {
  const jar = new CookieJar();
  jar.set('test_person', 'ada');
  const start = await browse(jar, authorizeUrl(clientId, challenge));
  expect(start.status).toBe(303);
  const interaction = new URL(start.headers.get('location')!, svc.url).href;
  const screen = await browse(jar, interaction);
  expect(screen.status).toBe(200);
  expect(await screen.text()).toContain('Test Agent');
  const approved = await browse(jar, interaction, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ decision: 'approve', workspaceId, ...form }) });
  expect(approved.status).toBe(303);
  const resumed = await browse(jar, new URL(approved.headers.get('location')!, svc.url).href);
  expect(resumed.status).toBe(303);
  return new URL(resumed.headers.get('location')!);
}

async function signIn(form: Record<string, string> = {}) {
  const clientId = await newClient();
  const { verifier, challenge } = pkcePair();
  const back = await approve(clientId, challenge, form);
  const tokens = await tokenRequest(svc.url, { grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: REDIRECT, client_id: clientId, code_verifier: verifier, resource: `${svc.url}/mcp` });
  expect(tokens.status).toBe(200);
  return { clientId, back, tokens: tokens.body as { access_token: string; refresh_token: string; expires_in: number; token_type: string; scope: string } };
}

function mcp(token: string, body: unknown) {
  return fetch(`${svc.url}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify(body),
  });
}
const whoamiCall = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } };

describe('MCP sign-in, by hand over HTTP', () => {
  it('approves, redirects back with code, state and iss (RFC 9207), and issues tokens for /mcp', async () => {
    const { back, tokens } = await signIn();
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get('state')).toBe('st4te');
    expect(back.searchParams.get('iss')).toBe(svc.url);
    expect(tokens.token_type).toBe('Bearer');
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const res = await mcp(tokens.access_token, whoamiCall);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain(workspaceId);
  });
});
