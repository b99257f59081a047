import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import type { Browser } from 'playwright-core';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, NO_BROWSER } from '../support/browser.ts';
import { MemoryOAuthProvider } from '../support/mcp-oauth-provider.ts';
import { tokenRequest } from '../support/oauth-client.ts';
import { startTestService, type TestService } from '../support/service.ts';

if (NO_BROWSER) console.warn(`mcp-oauth-client: ${NO_BROWSER}`);

const ADA = { email: 'ada@example.com', password: 'correct horse battery' };
/** The workspace Ada connects: her second one, picked on the approval screen. */
let research: { id: string; name: string };

/** A client ID metadata document on a loopback https server with a certificate made for this run. */
function metadataServer(): { server: Server; ca: string; documentUrl: (port: number) => string; listen: () => Promise<number> } {
  const dir = mkdtempSync(join(tmpdir(), 'cimd-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
  const key = readFileSync(join(dir, 'key.pem'));
  const cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
  rmSync(dir, { recursive: true, force: true });
  let port = 0;
  const documentUrl = (p: number) => `https://127.0.0.1:${p}/clients/playwright-agent.json`;
  const server = createServer({ key, cert }, (req, res) => {
    if (req.url !== '/clients/playwright-agent.json') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ client_id: documentUrl(port), client_name: 'Metadata Agent', redirect_uris: [CALLBACK], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' }));
  });
  return {
    server,
    ca: cert,
    documentUrl,
    listen: () => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((port = (server.address() as AddressInfo).port)))),
  };
}

const CALLBACK = 'http://127.0.0.1:53682/oauth/callback';
let clock = new Date();
let svc: TestService;
let browser: Browser;
let cimd: ReturnType<typeof metadataServer>;
let cimdUrl: string;

beforeAll(async () => {
  if (NO_BROWSER) return;
  cimd = metadataServer();
  cimdUrl = cimd.documentUrl(await cimd.listen());
  const trusting = new Agent({ connect: { ca: cimd.ca } });
  svc = await startTestService({
    now: () => clock,
    clientMetadataFetch: (url, init) => undiciFetch(url, { ...(init as object), dispatcher: trusting }) as unknown as Promise<Response>,
  });
  const { person } = await svc.service.people.signUp({ ...ADA, name: 'Ada' });
  research = await svc.service.people.createWorkspace(person.id, 'Research');
  // Only a person's first workspace gets the free grant: this one buys its credits.
  expect((await svc.operator('POST', `/operator/workspaces/${research.id}/purchases`, { usdCents: 0, credits: 1000 })).status).toBe(201);
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await svc?.close();
  cimd?.server.close();
});

/** The person's part, in Chromium: open the authorization URL, sign in on the dashboard, pick the workspace, approve. */
async function approveInBrowser(authorizationUrl: URL, options: { monitors?: boolean } = {}): Promise<URL> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    let callback: URL | undefined;
    // The client's loopback redirect: caught here, as the client's own listener would catch it.
    await page.route(`${CALLBACK}**`, async (route) => {
      callback = new URL(route.request().url());
      await route.fulfill({ status: 200, contentType: 'text/html', body: '<p>You can close this window.</p>' });
    });
    await page.goto(authorizationUrl.href);
    // Not signed in: the dashboard's sign-in page, which brings the browser back to the approval screen.
    await page.waitForURL(/\/dashboard\/sign-in\?next=%2Foauth%2Finteraction%2F/);
    await page.getByLabel('Email').fill(ADA.email);
    await page.getByLabel('Password').fill(ADA.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: /Connect/ }).waitFor();
    await page.getByLabel('Workspace').selectOption({ label: 'Research' });
    if (options.monitors) await page.getByLabel('Create, change and run monitors').check();
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.waitForURL(`${CALLBACK}**`);
    if (!callback) throw new Error('the browser never reached the client callback');
    return callback;
  } finally {
    await context.close();
  }
}

/** The official client, as an application runs it: connect, get sent to sign in, finish, connect again. */
async function signInWithClient(provider: MemoryOAuthProvider, mode: 'legacy' | 'auto', options: { monitors?: boolean } = {}): Promise<{ client: Client; callback: URL }> {
  const first = new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`), { authProvider: provider });
  const refused = new Client({ name: 'playwright-agent', version: '1.0.0' }, { versionNegotiation: { mode } });
  const failure = await refused.connect(first).then(() => refused.listTools()).then(() => undefined, (error: unknown) => error);
  // The client discovered the server from the 401, registered (or used its metadata document) and wants a person.
  expect(failure, JSON.stringify(failure)).toBeInstanceOf(UnauthorizedError);
  expect(provider.authorizationUrl, 'the client was sent to the authorization endpoint').toBeDefined();
  const callback = await approveInBrowser(provider.authorizationUrl!, options);
  await first.finishAuth(callback.searchParams);
  await refused.close();
  const client = new Client({ name: 'playwright-agent', version: '1.0.0' }, { versionNegotiation: { mode } });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`), { authProvider: provider }));
  return { client, callback };
}

async function keysOfWorkspace() {
  return (await svc.operator('GET', `/operator/workspaces/${research.id}/keys`)).body.data as Array<{ keyId: string; kind: string; name: string; scopes: string[]; revokedAt: string | null }>;
}

describe.skipIf(Boolean(NO_BROWSER))('the official MCP client signs in with OAuth, approved in headless Chromium', () => {
  it('registers (DCR), gets approved, lists and calls tools (billed), refreshes with rotation, and is cut off by revocation', async () => {
    const provider = new MemoryOAuthProvider(CALLBACK, 'Playwright Agent');
    const { client, callback } = await signInWithClient(provider, 'legacy');
    expect(callback.searchParams.get('iss')).toBe(svc.url);
    expect(provider.information?.client_id).toEqual(expect.any(String));
    expect(provider.information?.client_id).not.toMatch(/^https:/);

    const tools = (await client.listTools()).tools.map((tool) => tool.name);
    expect(tools).toContain('get_microblog_user');
    // Monitor and webhook tools only for a connection that was granted them.
    expect(tools).not.toContain('create_monitor');
    const { key } = await svc.newKey({ workspaceId: research.id });
    const before = (await svc.request('GET', '/v1/usage', { key })).body.data.balance;
    const result = await client.callTool({ name: 'get_microblog_user', arguments: { user: 'simdevs' } });
    expect(result.isError).toBeFalsy();
    expect((await svc.request('GET', '/v1/usage', { key })).body.data.balance).toBe(before - 3);

    const connection = (await keysOfWorkspace()).find((row) => row.name === 'Playwright Agent (MCP)');
    expect(connection).toMatchObject({ kind: 'mcp_connection', scopes: ['read:social', 'usage:read'], revokedAt: null });

    // Two hours on, the access token has expired: the client refreshes by itself and the call goes through.
    const firstTokens = provider.saved!;
    clock = new Date(clock.getTime() + 2 * 3_600_000);
    expect((await client.callTool({ name: 'whoami', arguments: {} })).isError).toBeFalsy();
    expect(provider.saved!.access_token).not.toBe(firstTokens.access_token);
    expect(provider.saved!.refresh_token).toEqual(expect.any(String));
    expect(provider.saved!.refresh_token).not.toBe(firstTokens.refresh_token);

    expect((await svc.operator('POST', `/operator/keys/${connection!.keyId}/revoke`)).status).toBe(200);
    const direct = await fetch(`${svc.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${provider.saved!.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
    });
    expect(direct.status).toBe(401);
    await expect(client.callTool({ name: 'whoami', arguments: {} })).rejects.toThrow();
    // Neither refresh token brings it back: the rotated-out one nor the current one.
    for (const refreshToken of [firstTokens.refresh_token!, provider.saved!.refresh_token!]) {
      const refused = await tokenRequest(svc.url, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: provider.information!.client_id });
      expect(refused.body.error).toBe('invalid_grant');
    }
    await client.close();
  }, 60_000);

  it('signs in with a client ID metadata document on the 2026-07-28 protocol, with monitor access ticked', async () => {
    const provider = new MemoryOAuthProvider(CALLBACK, 'Metadata Agent', cimdUrl);
    const { client } = await signInWithClient(provider, 'auto', { monitors: true });
    expect(provider.information?.client_id).toBe(cimdUrl);
    const tools = (await client.listTools()).tools.map((tool) => tool.name);
    expect(tools).toContain('create_monitor');
    expect((await client.callTool({ name: 'list_monitors', arguments: {} })).isError).toBeFalsy();
    const connection = (await keysOfWorkspace()).find((row) => row.name === 'Metadata Agent (MCP)');
    expect(connection?.scopes).toEqual(['read:social', 'usage:read', 'monitors:write']);
    await client.close();
  }, 60_000);
});
