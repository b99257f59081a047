import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
let key: string;

beforeAll(async () => {
  svc = await startTestService({ simPublish: true });
  ({ key } = await svc.newKey({ scopes: ['read:social'] }));
});
afterAll(async () => {
  await svc?.close();
});

describe('the demo’s simulated platforms', () => {
  it.each(['rust', 'the', 'python'])('find several forum posts for "%s", as a new user would search', async (query) => {
    const res = await svc.request('POST', '/v1/forum/search', { key, body: { query, sort: 'new' } });
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeGreaterThanOrEqual(3);
  });

  it.each(['rust', 'music'])('find several microblog posts for "%s"', async (query) => {
    const res = await svc.request('POST', '/v1/microblog/search', { key, body: { query } });
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeGreaterThanOrEqual(3);
  });
});
