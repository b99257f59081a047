import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_LIVE_KEYS_PER_WORKSPACE } from '../../adapters/identity/identity-store.ts';
import { DashboardClient } from '../support/dashboard-client.ts';
import { startTestService, type TestService } from '../support/service.ts';

/** A workspace holds at most MAX_LIVE_KEYS_PER_WORKSPACE live keys, whichever way a key is created. */
let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ jobs: { autostart: false } });
});
afterAll(async () => {
  await svc?.close();
});

async function fill(workspaceId: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let made = 0; made < count; made++) {
    ids.push((await svc.service.identity.createApiKey({ workspaceId, label: 'test', scopes: ['read:social'], expiresAt: null })).keyId);
  }
  return ids;
}

describe('live API keys per workspace', () => {
  it('the operator gets 409 naming the limit at the cap; a revoked key frees a place; revoked keys do not count', async () => {
    const { id: workspaceId } = await svc.service.identity.createWorkspace({ name: 'many keys' });
    const ids = await fill(workspaceId, MAX_LIVE_KEYS_PER_WORKSPACE);
    const create = () => svc.operator('POST', '/operator/keys', { workspaceId, label: 'live', scopes: ['read:social'], expiresInDays: 30 });
    const refused = await create();
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'conflict', details: { limit: 'keys', maximum: MAX_LIVE_KEYS_PER_WORKSPACE } });
    expect(refused.body.error.message).toContain('revoke one');

    await svc.operator('POST', `/operator/keys/${ids[0]}/revoke`, {});
    expect((await create()).status).toBe(201);
    expect((await create()).status).toBe(409);
  });

  it('the dashboard says why on creation; at the cap a key still rotates, one over until the old key is revoked, once', async () => {
    const browser = new DashboardClient(svc.url);
    await browser.signUp('many-keys@example.com');
    const person = await svc.service.identity.getPersonByEmail('many-keys@example.com');
    const [{ id: workspaceId }] = await svc.service.people.workspaces(person!.id);
    const [first] = await fill(workspaceId, MAX_LIVE_KEYS_PER_WORKSPACE);
    const keys = `/dashboard/workspaces/${workspaceId}/keys`;
    await browser.get(keys);
    const created = await browser.post(keys, { name: 'one more', label: 'test', scopes: ['read:forum'], expiry: '30' });
    expect(created.status).toBe(409);
    expect(created.body).toContain(`already has ${MAX_LIVE_KEYS_PER_WORKSPACE} live keys`);
    await browser.get(`${keys}/${first}/rotate`);
    expect((await browser.post(`${keys}/${first}/rotate`, { expiry: '365' })).status).toBe(201);
    const live = async () => (await svc.service.identity.listKeys(workspaceId)).filter((key) => key.kind === 'api_key' && key.revokedAt === null).length;
    expect(await live()).toBe(MAX_LIVE_KEYS_PER_WORKSPACE + 1);
    const twice = await browser.post(`${keys}/${first}/rotate`, { expiry: '365' });
    expect(twice.status).toBe(409);
    expect(twice.body).toContain(`already has ${MAX_LIVE_KEYS_PER_WORKSPACE} live keys`);
    expect((await browser.post(keys, { name: 'one more', label: 'test', scopes: ['read:forum'], expiry: '30' })).status).toBe(409);
    await svc.service.identity.revokeApiKey(first);
    expect(await live()).toBe(MAX_LIVE_KEYS_PER_WORKSPACE);
  });
});
