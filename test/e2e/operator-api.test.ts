import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
});
