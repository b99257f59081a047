import { expect } from 'vitest';
import { browse, CookieJar, pkcePair, registerClient, tokenRequest } from './oauth-client.ts';

/** The loopback redirect URI the test clients register (never listened on: the tests read the redirect itself). */
export const REDIRECT = 'http://127.0.0.1:53682/callback';

export interface McpTokens {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  token_type: string;
  scope: string;
}

/** The MCP sign-in by hand over HTTP, as a person whose dashboard session is `session` approving for `workspaceId`. */
export class McpSignIn {
  private readonly url: string;
  private readonly person: { session: string; workspaceId: string };

  constructor(url: string, person: { session: string; workspaceId: string }) {
    this.url = url;
    this.person = person;
  }

  async newClient(): Promise<string> {
    const registered = await registerClient(this.url, { client_name: 'Test Agent', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' });
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    return registered.body.client_id;
  }

  authorizeUrl(clientId: string, challenge: string, extra: Record<string, string> = {}): string {
    return `${this.url}/oauth/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 'st4te',
      scope: 'read:social usage:read',
      resource: `${this.url}/mcp`,
      ...extra,
    })}`;
  }

  /** A browser signed in as the person, sent by the authorization endpoint to its approval screen. */
  async beginApproval(clientId: string, challenge: string, as = { session: this.person.session }, authorize: Record<string, string> = {}): Promise<{ jar: CookieJar; interaction: string }> {
    const jar = new CookieJar();
    jar.set('svc_session', as.session);
    const start = await browse(jar, this.authorizeUrl(clientId, challenge, authorize));
    expect(start.status).toBe(303);
    return { jar, interaction: new URL(start.headers.get('location')!, this.url).href };
  }

  /** Signs in, approves on the screen, and returns the redirect back to the client. */
  async approve(clientId: string, challenge: string, form: Record<string, string> = {}, as = { session: this.person.session }, authorize: Record<string, string> = {}): Promise<URL> {
    return this.finishApproval(await this.beginApproval(clientId, challenge, as, authorize), form);
  }

  /** Approves on the screen the browser was sent to, and returns the redirect back to the client. */
  async finishApproval({ jar, interaction }: { jar: CookieJar; interaction: string }, form: Record<string, string> = {}): Promise<URL> {
    const screen = await browse(jar, interaction);
    expect(screen.status).toBe(200);
    expect(await screen.text()).toContain('Test Agent');
    const approved = await browse(jar, interaction, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ decision: 'approve', workspaceId: this.person.workspaceId, ...form }),
    });
    expect(approved.status).toBe(303);
    const resumed = await browse(jar, new URL(approved.headers.get('location')!, this.url).href);
    expect(resumed.status).toBe(303);
    return new URL(resumed.headers.get('location')!);
  }

  /** A new client, approved, its code exchanged: the tokens of a new connection. `authorize` adds to or replaces the authorization request's parameters. */
  async signIn(form: Record<string, string> = {}, as = { session: this.person.session }, authorize: Record<string, string> = {}): Promise<{ clientId: string; back: URL; tokens: McpTokens }> {
    const clientId = await this.newClient();
    const { verifier, challenge } = pkcePair();
    const back = await this.approve(clientId, challenge, form, as, authorize);
    const tokens = await tokenRequest(this.url, { grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: REDIRECT, client_id: clientId, code_verifier: verifier, resource: `${this.url}/mcp` });
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    return { clientId, back, tokens: tokens.body as McpTokens };
  }

  mcp(token: string, body: unknown): Promise<Response> {
    return fetch(`${this.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify(body),
    });
  }
}

export const whoamiCall = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } };
