import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.close();
});

describe('403 insufficient_scope', () => {
  it.each([
    ['/v1/forum/posts/1a00005', ['read:forum', 'read:social']],
    ['/v1/monitors', ['monitors:read', 'monitors:write']],
  ])('on %s lists every scope that grants the call', async (path, accepted) => {
    const { key } = await svc.newKey({ scopes: ['usage:read'] });
    const res = await svc.request('GET', path, { key });
    expect(res.status).toBe(403);
    expect(res.body.error.details.acceptedScopes).toEqual(accepted);
  });
});
