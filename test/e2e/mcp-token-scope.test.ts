import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpSignIn } from '../support/mcp-sign-in.ts';
import { tokenRequest } from '../support/oauth-client.ts';
import { startTestService, type TestService } from '../support/service.ts';

/** A token's own scope narrows what its connection may do on /mcp (docs/mcp-auth.md "Connections"). */
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

const callOf = (name: string) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } });

async function outcome(token: string, tool: string): Promise<number | 'ok' | 'tool error'> {
  const res = await flow.mcp(token, callOf(tool));
  const text = await res.text();
  if (res.status !== 200) return res.status;
  return text.includes('"isError":true') ? 'tool error' : 'ok';
}

describe('an MCP access token', () => {
  it('may do only what both its scope and its connection grant: asked for read:social, approved with monitors', async () => {
    const { tokens } = await flow.signIn({ monitors: 'on' }, undefined, { scope: 'read:social' });
    // What the person ticked is added to what the client asked for; usage:read, not asked for, is not.
    expect(tokens.scope.split(' ').sort()).toEqual(['monitors:write', 'read:social']);
    expect(await outcome(tokens.access_token, 'list_monitors')).toBe('ok');
    const refused = await flow.mcp(tokens.access_token, callOf('get_usage_ledger'));
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toContain('scope="usage:read"');
    expect(await outcome(tokens.access_token, 'whoami')).toBe('ok');
  });

  it('narrowed at refresh to read:social and usage:read, no longer reaches the monitors its connection may', async () => {
    const { clientId, tokens } = await flow.signIn({ monitors: 'on' });
    expect(tokens.scope.split(' ')).toContain('monitors:write');
    expect(await outcome(tokens.access_token, 'list_monitors')).toBe('ok');
    const narrowed = await tokenRequest(svc.url, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientId, scope: 'read:social usage:read', resource: `${svc.url}/mcp` });
    expect(narrowed.status, JSON.stringify(narrowed.body)).toBe(200);
    expect(narrowed.body.scope).toBe('read:social usage:read');
    const refused = await flow.mcp(narrowed.body.access_token, callOf('list_monitors'));
    expect(refused.status).toBe(403);
    expect((await refused.json()).error.code).toBe('insufficient_scope');
    expect(await outcome(narrowed.body.access_token, 'get_usage_ledger')).not.toBe(403);
  });

  it('of a client that asked for none of the scopes carries what the person approved', async () => {
    const { tokens } = await flow.signIn({}, undefined, { scope: '' });
    expect(tokens.scope).toBe('read:social usage:read');
    expect(await outcome(tokens.access_token, 'get_usage_ledger')).not.toBe(403);
  });
});
