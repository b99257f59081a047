import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_LIVE_CONNECTIONS_PER_WORKSPACE } from '../../adapters/identity/identity-store.ts';
import { McpSignIn, REDIRECT, whoamiCall } from '../support/mcp-sign-in.ts';
import { browse, pkcePair, tokenRequest } from '../support/oauth-client.ts';
import { startTestService, type TestService } from '../support/service.ts';

/** A workspace holds at most MAX_LIVE_CONNECTIONS_PER_WORKSPACE live MCP connections (security review F4). */
const DAY_MS = 86_400_000;

let svc: TestService;
let personId: string;
let session: string;

beforeAll(async () => {
  svc = await startTestService({ jobs: { autostart: false } });
  const { person } = await svc.service.people.signUp({ email: 'ada@example.com', password: 'correct horse battery', name: 'Ada' });
  personId = person.id;
  session = (await svc.service.people.startSession(person.id)).token;
});
afterAll(async () => {
  await svc?.close();
});

async function newWorkspace(name: string): Promise<{ workspaceId: string; flow: McpSignIn }> {
  const { id: workspaceId } = await svc.service.people.createWorkspace(personId, name);
  return { workspaceId, flow: new McpSignIn(svc.url, { session, workspaceId }) };
}

const sql = <T extends object>(statement: string, params: unknown[] = []) => svc.service.orm.em.getConnection().execute<T[]>(statement, params);

/** Connections as an approval stores them, each with a grant ending `endsInDays` from now (negative: already ended). */
async function fill(workspaceId: string, count: number, endsInDays = 30): Promise<string[]> {
  const ids: string[] = [];
  for (let made = 0; made < count; made++) {
    const grantId = randomUUID();
    await sql(`insert into "oauth_model" ("kind", "id", "payload", "expires_at") values ('Grant', ?, '{}'::jsonb, ?)`, [grantId, new Date(Date.now() + endsInDays * DAY_MS).toISOString()]);
    const connection = await svc.service.connections.create({ workspaceId, personId, clientId: 'filler', clientName: 'Filler', scopes: ['read:social', 'usage:read'], grantId });
    ids.push(connection.keyId);
  }
  return ids;
}

async function liveConnections(workspaceId: string): Promise<number> {
  const now = Date.now();
  return (await svc.service.identity.listKeys(workspaceId)).filter((key) => key.kind === 'mcp_connection' && key.revokedAt === null && key.expiresAt!.getTime() > now).length;
}

async function grants(): Promise<number> {
  return (await sql<{ n: number }>(`select count(*)::int as "n" from "oauth_model" where "kind" = 'Grant'`))[0].n;
}

/** The approval screen's post, answered as it is (approve() expects the redirect back to the client). */
async function post(begun: { jar: Parameters<typeof browse>[0]; interaction: string }, workspaceId: string): Promise<Response> {
  expect((await browse(begun.jar, begun.interaction)).status).toBe(200);
  return browse(begun.jar, begun.interaction, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ decision: 'approve', workspaceId }),
  });
}

describe('live MCP connections per workspace', () => {
  it('at the cap the approval screen refuses, keeps nothing, and approves once a connection is revoked; ended and revoked ones do not count', async () => {
    const { workspaceId, flow } = await newWorkspace('many connections');
    await fill(workspaceId, 5, -1);
    const [revoked] = await fill(workspaceId, 1);
    await svc.service.identity.revokeApiKey(revoked);
    const [first] = await fill(workspaceId, MAX_LIVE_CONNECTIONS_PER_WORKSPACE - 1);
    // The last place, through the real sign-in.
    const last = await flow.signIn();
    expect((await flow.mcp(last.tokens.access_token, whoamiCall)).status).toBe(200);
    expect(await liveConnections(workspaceId)).toBe(MAX_LIVE_CONNECTIONS_PER_WORKSPACE);

    // The same client approved once more: refused on the screen, with what to do.
    const { verifier, challenge } = pkcePair();
    const begun = await flow.beginApproval(last.clientId, challenge);
    const grantsBefore = await grants();
    const refused = await post(begun, workspaceId);
    expect(refused.status).toBe(409);
    const page = await refused.text();
    expect(page).toContain(`already has ${MAX_LIVE_CONNECTIONS_PER_WORKSPACE} live MCP connections`);
    expect(page).toContain('Revoke a connection first');
    expect(page).toContain(`/dashboard/workspaces/${workspaceId}/keys`);
    expect(await liveConnections(workspaceId)).toBe(MAX_LIVE_CONNECTIONS_PER_WORKSPACE);
    expect(await grants()).toBe(grantsBefore);

    // A connection revoked (on the keys page, or any revocation path) frees a place: the same screen approves.
    await svc.service.identity.revokeApiKey(first);
    const approved = await browse(begun.jar, begun.interaction, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ decision: 'approve', workspaceId }),
    });
    expect(approved.status).toBe(303);
    const resumed = await browse(begun.jar, new URL(approved.headers.get('location')!, svc.url).href);
    const back = new URL(resumed.headers.get('location')!);
    const tokens = await tokenRequest(svc.url, { grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: REDIRECT, client_id: last.clientId, code_verifier: verifier, resource: `${svc.url}/mcp` });
    expect(tokens.status).toBe(200);
    expect((await flow.mcp(tokens.body.access_token, whoamiCall)).status).toBe(200);
    expect(await liveConnections(workspaceId)).toBe(MAX_LIVE_CONNECTIONS_PER_WORKSPACE);
  });

  it('parallel approvals cannot pass the cap together', async () => {
    const { workspaceId, flow } = await newWorkspace('parallel approvals');
    await fill(workspaceId, MAX_LIVE_CONNECTIONS_PER_WORKSPACE - 2);
    const clientId = await flow.newClient();
    const screens = await Promise.all([1, 2, 3, 4].map(() => flow.beginApproval(clientId, pkcePair().challenge)));
    const answers = await Promise.all(screens.map((begun) => post(begun, workspaceId)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([303, 303, 409, 409]);
    expect(await liveConnections(workspaceId)).toBe(MAX_LIVE_CONNECTIONS_PER_WORKSPACE);
  });

  // Each approval is a connection of its own: one client id may run on several devices (a client id published as a
  // URL is shared by every install), and replacing would cut the other one off.
  it('approving the same client again adds a connection and leaves the earlier one working', async () => {
    const { workspaceId, flow } = await newWorkspace('one client twice');
    const first = await flow.signIn();
    const { verifier, challenge } = pkcePair();
    const back = await flow.approve(first.clientId, challenge);
    const second = await tokenRequest(svc.url, { grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: REDIRECT, client_id: first.clientId, code_verifier: verifier, resource: `${svc.url}/mcp` });
    expect(second.status).toBe(200);
    expect((await flow.mcp(first.tokens.access_token, whoamiCall)).status).toBe(200);
    expect((await flow.mcp(second.body.access_token, whoamiCall)).status).toBe(200);
    expect((await svc.service.identity.listKeys(workspaceId)).filter((key) => key.name === 'Test Agent (MCP)')).toHaveLength(2);
  });
});
