import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlDbFromOrm } from '../../adapters/db/sql.ts';
import { createConnectionStore } from '../../adapters/oauth/connection-store.ts';
import { DashboardClient } from '../support/dashboard-client.ts';
import { startTestService, type TestService } from '../support/service.ts';

const DAY_MS = 86_400_000;

describe('dashboard API keys over HTTP', () => {
  let svc: TestService;
  let now = new Date('2026-11-24T12:00:00Z');
  let browser: DashboardClient;
  let workspaceId: string;

  const whoami = (key: string) => svc.request('GET', '/v1/whoami', { key });
  const keysPath = () => `/dashboard/workspaces/${workspaceId}/keys`;
  const secretOf = (body: string) => /id="new-key">(svc_(?:live|test)_[0-9A-Za-z]{33})</.exec(body)?.[1];

  beforeAll(async () => {
    svc = await startTestService({ now: () => now, jobs: { autostart: false } });
    browser = new DashboardClient(svc.url);
    await browser.signUp('keys@example.com');
    const person = await svc.service.identity.getPersonByEmail('keys@example.com');
    [{ id: workspaceId }] = await svc.service.people.workspaces(person!.id);
  });

  afterAll(async () => {
    await svc?.close();
  });

  it('creates a key with scopes, label and expiry, shows it once, and the API takes it', async () => {
    await browser.get(keysPath());
    const created = await browser.post(keysPath(), { name: 'crawler', label: 'test', scopes: ['read:forum', 'usage:read'], expiry: '30' });
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const secret = secretOf(created.body) as string;
    expect(secret).toMatch(/^svc_test_/);

    const answer = await whoami(secret);
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ workspaceId, scopes: ['read:forum', 'usage:read'] });
    const [stored] = await svc.service.identity.listKeys(workspaceId);
    expect(stored).toMatchObject({ name: 'crawler', label: 'test', keyId: answer.body.data.keyId, expiresAt: new Date(now.getTime() + 30 * DAY_MS) });

    const list = await browser.get(keysPath());
    expect(list.body).toContain(`${stored.prefix}…`);
    expect(list.body).not.toContain(secret);
    expect(list.body).toContain('read:forum usage:read');
  });

  it('defaults to 90 days, and makes a key without expiry when asked', async () => {
    await browser.post(keysPath(), { name: 'default', label: 'live', scopes: ['read:social'], expiry: '90' });
    await browser.post(keysPath(), { name: 'forever', label: 'live', scopes: ['read:social'], expiry: 'never' });
    const keys = await svc.service.identity.listKeys(workspaceId);
    expect(keys.find((key) => key.name === 'default')?.expiresAt).toEqual(new Date(now.getTime() + 90 * DAY_MS));
    expect(keys.find((key) => key.name === 'forever')?.expiresAt).toBeNull();
    expect((await browser.get(keysPath())).body).toMatch(/<option value="90" selected>90 days \(default\)<\/option>/);
  });

  it('refuses a key without scopes or with an unknown scope, naming the field, creating nothing', async () => {
    const before = (await svc.service.identity.listKeys(workspaceId)).length;
    const none = await browser.post(keysPath(), { name: 'empty', label: 'live', expiry: '90' });
    expect(none.status).toBe(400);
    expect(none.body).toContain('scopes: tick at least one scope.');
    expect(none.body).toContain('value="empty"');
    const unknown = await browser.post(keysPath(), { name: 'odd', label: 'live', scopes: ['read:everything'], expiry: '90' });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toContain('scopes: Unknown scopes: read:everything.');
    const badExpiry = await browser.post(keysPath(), { name: 'odd', label: 'live', scopes: ['read:social'], expiry: '7' });
    expect(badExpiry.status).toBe(400);
    expect(badExpiry.body).toContain('expiry: choose one of the offered lifetimes.');
    expect((await svc.service.identity.listKeys(workspaceId)).length).toBe(before);
  });

  it('revokes a key: the API refuses it at once with 401', async () => {
    const created = await browser.post(keysPath(), { name: 'doomed', label: 'live', scopes: ['read:social'], expiry: '90' });
    const secret = secretOf(created.body) as string;
    const keyId = (await whoami(secret)).body.data.keyId as string;
    await browser.get(keysPath());
    const revoked = await browser.post(`${keysPath()}/${keyId}/revoke`, {});
    expect(revoked.status).toBe(303);
    expect(revoked.location).toBe(`${keysPath()}?revoked=${keyId}`);
    expect((await whoami(secret)).status).toBe(401);
    const list = await browser.get(revoked.location as string);
    expect(list.body).toContain('revoked: calls with it now get 401.');
    expect(list.body).toMatch(new RegExp(`data-key-id="${keyId}">.*?<span class="badge revoked">revoked</span>`, 's'));
  });

  it("cannot revoke another workspace's key through its own workspace", async () => {
    const other = await svc.newKey();
    const refused = await browser.post(`${keysPath()}/${other.keyId}/revoke`, {});
    expect(refused.status).toBe(404);
    expect((await whoami(other.key)).status).toBe(200);
  });

  it('rotates a key: a twin with the same scopes, its use seen through whoami, then the old key revoked', async () => {
    const first = await browser.post(keysPath(), { name: 'service', label: 'live', scopes: ['read:microblog', 'monitors:read'], expiry: '90' });
    const oldSecret = secretOf(first.body) as string;
    const oldKeyId = (await whoami(oldSecret)).body.data.keyId as string;

    const start = await browser.get(`${keysPath()}/${oldKeyId}/rotate`);
    expect(start.status).toBe(200);
    expect(start.body).toContain('read:microblog monitors:read');
    const twin = await browser.post(`${keysPath()}/${oldKeyId}/rotate`, { expiry: '365' });
    expect(twin.status).toBe(201);
    const newSecret = secretOf(twin.body) as string;
    expect(newSecret).toMatch(/^svc_live_/);
    expect(twin.body).toContain('The new key has not been used yet.');

    now = new Date(now.getTime() + 120_000);
    const moved = await whoami(newSecret);
    expect(moved.body.data).toMatchObject({ scopes: ['read:microblog', 'monitors:read'] });
    const newKeyId = moved.body.data.keyId as string;
    expect(newKeyId).not.toBe(oldKeyId);
    const statusPath = `${keysPath()}/${oldKeyId}/rotate/${newKeyId}`;
    const status = await browser.get(statusPath);
    expect(status.body).toContain('Traffic reached the new key.');
    expect(status.body).toMatch(new RegExp(`data-key-id="${newKeyId}">.*?class="last-used">2026-11-24 12:02 UTC<`, 's'));
    expect(status.body).not.toContain(newSecret);

    const revoked = await browser.post(`${keysPath()}/${oldKeyId}/revoke`, { next: statusPath });
    expect(revoked.location).toBe(statusPath);
    expect((await whoami(oldSecret)).status).toBe(401);
    expect((await whoami(newSecret)).status).toBe(200);
    expect((await browser.get(statusPath)).body).toContain('Rotation complete: the old key is revoked.');
  });
});

describe('MCP connections in the dashboard key list', () => {
  let svc: TestService;

  beforeAll(async () => {
    svc = await startTestService({ jobs: { autostart: false } });
  });

  afterAll(async () => {
    await svc?.close();
  });

  it('lists a connection as `<client> (MCP)` without prefix, label or rotation, and revokes it', async () => {
    const browser = new DashboardClient(svc.url);
    await browser.signUp('mcp@example.com');
    const person = await svc.service.identity.getPersonByEmail('mcp@example.com');
    const [{ id: workspaceId }] = await svc.service.people.workspaces(person!.id);
    const connection = await createConnectionStore(sqlDbFromOrm(svc.service.orm), () => new Date()).create({
      workspaceId,
      personId: person!.id,
      clientId: 'client-1',
      clientName: 'Claude',
      scopes: ['read:social', 'usage:read'],
      grantId: 'grant-1',
    });
    const keys = `/dashboard/workspaces/${workspaceId}/keys`;
    const list = await browser.get(keys);
    const row = new RegExp(`<tr data-key-id="${connection.keyId}">(.*?)</tr>`, 's').exec(list.body)?.[1] ?? '';
    expect(row).toContain('Claude (MCP) <span class="badge">connection</span>');
    expect(row).toContain('<td class="mono">—</td>');
    expect(row).not.toContain('Rotate');
    expect((await browser.get(`${keys}/${connection.keyId}/rotate`)).status).toBe(404);

    expect((await browser.post(`${keys}/${connection.keyId}/revoke`, {})).status).toBe(303);
    const [stored] = (await svc.service.identity.listKeys(workspaceId)).filter((key) => key.keyId === connection.keyId);
    expect(stored.revokedAt).not.toBeNull();
  });
});
