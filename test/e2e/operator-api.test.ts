import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashboardClient } from '../support/dashboard-client.ts';
import { startTestService, type TestService } from '../support/service.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.close();
});

describe('the operator API', () => {
  it('listens apart from the public API, on loopback', async () => {
    expect(svc.service.operatorUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(svc.service.operatorUrl).not.toBe(svc.url);
    const onPublic = await svc.request('GET', '/operator/audit', { headers: { authorization: 'Bearer test-operator-token-0123456789abcdef' } });
    expect(onPublic.status).toBe(404);
    expect((await svc.operator('GET', '/operator/audit')).status).toBe(200);
  });

  it('records every action with who, what and when, refused ones included', async () => {
    const { workspaceId, keyId } = await svc.newKey({ scopes: ['read:social'] });
    await svc.operator('POST', `/operator/workspaces/${workspaceId}/purchases`, { usdCents: 500, credits: 1000 });
    await svc.operator('POST', `/operator/workspaces/${workspaceId}/pause`, {});
    await svc.operator('POST', `/operator/keys/${keyId}/revoke`, {});
    await svc.operator('POST', `/operator/workspaces/${workspaceId}/refunds`, { usdCents: 999_999, credits: 1 });
    const audit = (await svc.operator('GET', '/operator/audit')).body.data as Array<Record<string, unknown>>;
    const mine = audit.filter((entry) => entry.workspaceId === workspaceId || (entry.details as { path: string }).path.includes(keyId));
    expect(mine.map((entry) => [entry.action, entry.status])).toEqual([
      ['POST /operator/workspaces/:id/refunds', 409],
      ['POST /operator/keys/:id/revoke', 200],
      ['POST /operator/workspaces/:id/pause', 200],
      ['POST /operator/workspaces/:id/purchases', 201],
    ]);
    for (const entry of mine) {
      expect(entry.actor).toMatch(/^token:[0-9a-f]{12} from (::ffff:)?127\.0\.0\.1$/);
      expect(Date.parse(String(entry.at))).not.toBeNaN();
      expect(JSON.stringify(entry)).not.toContain('test-operator-token');
    }
    expect(mine[3].details).toMatchObject({ input: { usdCents: 500, credits: 1000 } });
  });

  // Sign-up verifies no email: whoever signed up with a customer's address would get the workspace made for them.
  it('makes an existing person owner only when told existingOwner, and says who they are otherwise', async () => {
    const squatter = new DashboardClient(svc.url);
    expect((await squatter.signUp('ceo@victim-corp.example')).status).toBe(303);
    const person = (await svc.service.identity.getPersonByEmail('ceo@victim-corp.example'))!;

    const refused = await svc.operator('POST', '/operator/workspaces', { name: 'Victim Corp (paid)', ownerEmail: 'CEO@victim-corp.example' });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({
      code: 'conflict',
      details: { field: 'existingOwner', reason: 'owner_exists', personId: person.id, personCreatedAt: person.createdAt.toISOString(), hasPassword: true },
    });
    expect(refused.body.error.message).toContain(`already exists (signed up on ${person.createdAt.toISOString()})`);
    expect(refused.body.error.message).toContain('existingOwner: true');
    expect(await svc.service.people.workspaces(person.id)).toHaveLength(1);

    const told = await svc.operator('POST', '/operator/workspaces', { name: 'Victim Corp (paid)', ownerEmail: 'ceo@victim-corp.example', existingOwner: true });
    expect(told.status).toBe(201);
    expect(told.body.data).toMatchObject({ name: 'Victim Corp (paid)', ownerPersonId: person.id, ownerExisted: true, receivesFreeGrant: false });
    expect((await svc.service.people.workspaces(person.id)).map((workspace) => workspace.id)).toContain(told.body.data.id);
  });

  it('creates the owner when nobody holds the email, and refuses existingOwner for an email nobody holds', async () => {
    const unknown = await svc.operator('POST', '/operator/workspaces', { name: 'Typo', ownerEmail: 'nobody@new-corp.example', existingOwner: true });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.details).toMatchObject({ field: 'ownerEmail' });
    expect(await svc.service.identity.getPersonByEmail('nobody@new-corp.example')).toBeNull();

    const created = await svc.operator('POST', '/operator/workspaces', { name: 'New Corp', ownerEmail: 'owner@new-corp.example' });
    expect(created.status).toBe(201);
    const owner = (await svc.service.identity.getPersonByEmail('owner@new-corp.example'))!;
    expect(created.body.data).toMatchObject({ ownerPersonId: owner.id, ownerExisted: false, receivesFreeGrant: true });

    // The operator's own person from before is existing too: it has no password, and the answer says so.
    const again = await svc.operator('POST', '/operator/workspaces', { name: 'New Corp (2)', ownerEmail: 'owner@new-corp.example' });
    expect(again.status).toBe(409);
    expect(again.body.error.details).toMatchObject({ field: 'existingOwner', personId: owner.id, hasPassword: false });
    expect(again.body.error.message).toContain('was made by an operator on');

    const ownerless = await svc.operator('POST', '/operator/workspaces', { name: 'Nobody owns it' });
    expect(ownerless.body.data).toMatchObject({ ownerPersonId: null, ownerExisted: null });
    const flagAlone = await svc.operator('POST', '/operator/workspaces', { name: 'Flag alone', existingOwner: true });
    expect(flagAlone.status).toBe(400);
    expect(flagAlone.body.error.details).toMatchObject({ field: 'existingOwner' });
  });
});
