import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.close();
});

describe('cursors are bound to the workspace', () => {
  it('refuses a cursor that another workspace was given, and takes it back from its own', async () => {
    const a = await svc.newKey({ scopes: ['read:social'] });
    const b = await svc.newKey({ scopes: ['read:social'] });
    const body = { query: 'forum', limit: 1 };
    const first = await svc.request('POST', '/v1/forum/search', { key: a.key, body });
    const cursor = first.body.meta.nextCursor;
    expect(cursor).toEqual(expect.any(String));
    const foreign = await svc.request('POST', '/v1/forum/search', { key: b.key, body: { ...body, cursor } });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.code).toBe('invalid_cursor');
    expect(foreign.headers.get('x-credits-charged')).toBe('0');
    const own = await svc.request('POST', '/v1/forum/search', { key: a.key, body: { ...body, cursor } });
    expect(own.status).toBe(200);
  });
});
