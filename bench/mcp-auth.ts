import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { browse, CookieJar, pkcePair, registerClient, tokenRequest } from '../test/support/oauth-client.ts';
import { printTable } from './goals.ts';
import { load, type LoadResult } from './load.ts';
import { spawnService } from './processes.ts';

/**
 * `npm run bench:mcp-auth`: the same free MCP call (`whoami`) with an API key and with an OAuth access token, in the
 * same run against one service process, so the ratio says what verifying a token costs next to looking up a key.
 */
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
/** Each target is loaded unmeasured first, as in bench/run.ts: otherwise the first one measured runs unoptimised. */
const warmUpSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 20);
const REDIRECT = 'http://127.0.0.1:53682/callback';

/** The demo person signs in on the dashboard (CSRF token and all) and approves a client: its access token. */
async function accessToken(url: string, dataDir: string): Promise<string> {
  const credentials = await readFile(join(dataDir, 'demo-person'), 'utf8');
  const email = /^email: (\S+)$/m.exec(credentials)?.[1] ?? 'demo@example.com';
  const password = /^password: (\S+)$/m.exec(credentials)![1];
  const jar = new CookieJar();
  const form = await (await browse(jar, `${url}/dashboard/sign-in`)).text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(form)![1];
  const signedIn = await browse(jar, `${url}/dashboard/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: url },
    body: new URLSearchParams({ csrf, email, password, next: '/dashboard' }),
  });
  if (signedIn.status !== 303) throw new Error(`demo sign-in failed: ${signedIn.status}`);

  const client = (await registerClient(url, { client_name: 'bench', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' })).body.client_id as string;
  const { verifier, challenge } = pkcePair();
  const authorize = `${url}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: client, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256', scope: 'read:social usage:read' })}`;
  const interaction = new URL((await browse(jar, authorize)).headers.get('location')!, url).href;
  const screen = await (await browse(jar, interaction)).text();
  const workspaceId = /<option value="([^"]+)"/.exec(screen)![1];
  const approved = await browse(jar, interaction, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ decision: 'approve', workspaceId }) });
  const back = new URL((await browse(jar, new URL(approved.headers.get('location')!, url).href)).headers.get('location')!);
  const tokens = await tokenRequest(url, { grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: REDIRECT, client_id: client, code_verifier: verifier });
  return tokens.body.access_token as string;
}

// BENCH_SERVICE_ROOT measures another checkout's service (the "before" of a change) with this harness.
const service = await spawnService({ root: process.env.BENCH_SERVICE_ROOT, databaseUrl: process.env.DATABASE_URL, env: { SVC_TIERS: JSON.stringify({ free: { rateLimitPerMinute: 1_000_000_000 } }) } });
try {
  const token = await accessToken(service.url, service.dataDir);
  const call = (credential: string) => ({
    url: `${service.url}/mcp`,
    method: 'POST' as const,
    headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
  });
  const measure = async (name: string, credential: string) => {
    await load({ name, ...call(credential) }, { seconds: warmUpSeconds, connections });
    return load({ name, ...call(credential) }, { seconds, connections });
  };
  const key = await measure('MCP whoami, API key', service.key);
  const results: LoadResult[] = [key, await measure('MCP whoami, OAuth access token', token)];
  console.log(`\nNode ${process.version}, ${connections} connections, ${seconds}s per target, database: ${process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite'}`);
  printTable('MCP whoami: API key and OAuth access token', results, key, 'API key');
} finally {
  await service.stop();
}
