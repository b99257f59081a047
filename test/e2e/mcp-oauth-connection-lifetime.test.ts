import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { sqlDbFromOrm } from '../../adapters/db/sql.ts';
import { ENDED_CONNECTION_GRANT_RETENTION_DAYS, sweepExpiredOAuthModels } from '../../adapters/oauth/oauth-model-adapter.ts';
import { DashboardClient } from '../support/dashboard-client.ts';
import { McpSignIn, REDIRECT, whoamiCall } from '../support/mcp-sign-in.ts';
import { pkcePair, registerClient, tokenRequest } from '../support/oauth-client.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * How long an MCP connection lasts, through the real token endpoint with time moved forward. oidc-provider reads time
 * through `Date` (its expiry checks compare with `Date.now()`, which no option shifts), and the service's storage
 * adapter through the service's clock, which defaults to `new Date()`: so only `Date` is faked, and both read the same
 * moved time, as both read the same real time in production. Timers stay real, so nothing waits on the fake clock.
 */
const DAY_MS = 86_400_000;

let svc: TestService;
let personId: string;
let workspaceId: string;
let flow: McpSignIn;
let start: number;

beforeAll(async () => {
  svc = await startTestService();
  const { person, workspace } = await svc.service.people.signUp({ email: 'ada@example.com', password: 'correct horse battery', name: 'Ada' });
  personId = person.id;
  workspaceId = workspace.id;
});
afterAll(async () => {
  await svc?.close();
});
// Each test approves with a dashboard session started at its own day 0: the service's housekeeping, running on real
// timers, reads the faked Date too, and one pass during an earlier test's day 400 deletes a session started before it.
beforeEach(async () => {
  start = Date.now();
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(start);
  flow = new McpSignIn(svc.url, { session: (await svc.service.people.startSession(personId)).token, workspaceId });
});
afterEach(() => {
  vi.useRealTimers();
});

function atDay(day: number): void {
  vi.setSystemTime(start + day * DAY_MS);
}

function refresh(clientId: string, refreshToken: string, auth: Record<string, string> = {}) {
  return tokenRequest(svc.url, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId, ...auth });
}

describe('a connection whose public client keeps refreshing', () => {
  it('lasts past its grant’s first 30 days and past a year of rotations, refreshed every 20 days for 400 days', async () => {
    const { clientId, tokens } = await flow.signIn();
    let refreshToken = tokens.refresh_token;
    for (let day = 20; day <= 400; day += 20) {
      atDay(day);
      const refreshed = await refresh(clientId, refreshToken);
      expect(refreshed.status, `day ${day}: ${JSON.stringify(refreshed.body)}`).toBe(200);
      // Rotated on every use: the next refresh token lives 30 days from now.
      expect(refreshed.body.refresh_token, `day ${day}`).not.toBe(refreshToken);
      refreshToken = refreshed.body.refresh_token;
      expect((await flow.mcp(refreshed.body.access_token, whoamiCall)).status, `day ${day}`).toBe(200);
    }
    // Revoked on day 400, it ends at once however long it lasted.
    const keys = await svc.operator('GET', `/operator/workspaces/${workspaceId}/keys`);
    const live = (keys.body.data as Array<{ keyId: string; kind: string; revokedAt: string | null }>).filter((key) => key.kind === 'mcp_connection' && key.revokedAt === null);
    expect(live).toHaveLength(1);
    for (const key of live) expect((await svc.operator('POST', `/operator/keys/${key.keyId}/revoke`)).status).toBe(200);
    const refused = await refresh(clientId, refreshToken);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_grant');
  });

  it('ends when it goes unrefreshed for longer than its refresh token’s 30 days', async () => {
    const { clientId, tokens } = await flow.signIn();
    atDay(20);
    const first = await refresh(clientId, tokens.refresh_token);
    expect(first.status).toBe(200);
    // 29 days after that refresh, past the approval's first 30 days: still alive.
    atDay(49);
    const second = await refresh(clientId, first.body.refresh_token);
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    // Then idle for 31 days.
    atDay(80);
    const idle = await refresh(clientId, second.body.refresh_token);
    expect(idle.status).toBe(400);
    expect(idle.body.error).toBe('invalid_grant');
  });
});

describe('a connection that ended by going idle', () => {
  type Listed = { keyId: string; kind: string; expiresAt: string | null; revokedAt: string | null };
  const listed = async (): Promise<Listed[]> => (await svc.operator('GET', `/operator/workspaces/${workspaceId}/keys`)).body.data;
  /** The connection's status badge in the dashboard's key list, as a session started now sees it. */
  async function dashboardStatus(keyId: string): Promise<string | undefined> {
    const browser = new DashboardClient(svc.url);
    browser.cookies.set('svc_session', (await svc.service.people.startSession(personId)).token);
    const page = await browser.get(`/dashboard/workspaces/${workspaceId}/keys`);
    const row = new RegExp(`<tr data-key-id="${keyId}">(.*?)</tr>`, 's').exec(page.body)?.[1] ?? '';
    return /<span class="badge (\w+)">/.exec(row)?.[1];
  }

  it('shows as ended in every key list once its grant expires, 31 days after its last refresh, and cannot be used', async () => {
    const before = new Set((await listed()).map((key) => key.keyId));
    const { clientId, tokens } = await flow.signIn();
    const [connection] = (await listed()).filter((key) => !before.has(key.keyId));
    expect(connection.kind).toBe('mcp_connection');

    atDay(20);
    const refreshed = await refresh(clientId, tokens.refresh_token);
    expect(refreshed.status).toBe(200);
    // Its end is its grant's, moved by the refresh to 30 days on.
    const ends = new Date(start + 50 * DAY_MS).toISOString();
    expect((await listed()).find((key) => key.keyId === connection.keyId)).toMatchObject({ expiresAt: ends, revokedAt: null });
    expect(await dashboardStatus(connection.keyId)).toBe('active');

    // 31 days without a refresh. Before, both lists still showed it live (no expiry, not revoked).
    atDay(51);
    expect((await listed()).find((key) => key.keyId === connection.keyId)).toMatchObject({ expiresAt: ends, revokedAt: null });
    expect(await dashboardStatus(connection.keyId)).toBe('expired');
    expect((await flow.mcp(refreshed.body.access_token, whoamiCall)).status).toBe(401);
    const idle = await refresh(clientId, refreshed.body.refresh_token);
    expect(idle.status).toBe(400);
    expect(idle.body.error).toBe('invalid_grant');

    // Housekeeping frees the expired records but keeps the grant that dates the end.
    const sql = sqlDbFromOrm(svc.service.orm);
    const grants = async () =>
      (await sql.all<{ n: number }>(`select count(*)::int as "n" from "oauth_model" g join "api_key" k on g."kind" = 'Grant' and g."id" = k."oauth_grant_id" where k."id" = ?`, [connection.keyId]))[0].n;
    await sweepExpiredOAuthModels(sql, () => new Date());
    expect((await listed()).find((key) => key.keyId === connection.keyId)).toMatchObject({ expiresAt: ends, revokedAt: null });
    expect(await dashboardStatus(connection.keyId)).toBe('expired');
    expect(await grants()).toBe(1);

    // Kept for the retention after its end, not forever: then the grant goes and the connection keeps its end.
    const retention = ENDED_CONNECTION_GRANT_RETENTION_DAYS * DAY_MS;
    await sweepExpiredOAuthModels(sql, () => new Date(Date.parse(ends) + retention - 1000));
    expect(await grants()).toBe(1);
    await sweepExpiredOAuthModels(sql, () => new Date(Date.parse(ends) + retention));
    expect(await grants()).toBe(0);
    expect((await listed()).find((key) => key.keyId === connection.keyId)).toMatchObject({ expiresAt: ends, revokedAt: null });
    expect(await dashboardStatus(connection.keyId)).toBe('expired');
  });
});

describe('a connection whose confidential client keeps refreshing', () => {
  it('keeps its refresh token until 70 % of its life has passed, then rotates, for as long as it refreshes every 8 days', async () => {
    const registered = await registerClient(svc.url, { client_name: 'Test Agent', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_post' });
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    const { client_id: clientId, client_secret: secret } = registered.body as { client_id: string; client_secret: string };
    const { verifier, challenge } = pkcePair();
    const back = await flow.approve(clientId, challenge);
    const issued = await tokenRequest(svc.url, { grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: REDIRECT, client_id: clientId, client_secret: secret, code_verifier: verifier });
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    let refreshToken: string = issued.body.refresh_token;
    let issuedOn = 0;
    let rotations = 0;
    for (let day = 8; day <= 400; day += 8) {
      atDay(day);
      const refreshed = await refresh(clientId, refreshToken, { client_secret: secret });
      expect(refreshed.status, `day ${day}: ${JSON.stringify(refreshed.body)}`).toBe(200);
      const rotated = refreshed.body.refresh_token !== refreshToken;
      expect(rotated, `day ${day}, ${day - issuedOn} days after its refresh token was issued`).toBe(day - issuedOn >= 21);
      if (rotated) {
        refreshToken = refreshed.body.refresh_token;
        issuedOn = day;
        rotations += 1;
      }
    }
    expect(rotations).toBeGreaterThan(12);
  });
});
