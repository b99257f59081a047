import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
let key: string;

beforeAll(async () => {
  svc = await startTestService();
  ({ key } = await svc.newKey({ scopes: ['read:social'] }));
});
afterAll(async () => {
  await svc?.close();
});

describe('an answer the service cannot read', () => {
  it('is 503 upstream_invalid, apart from an unreachable platform, and charges nothing', async () => {
    const faults = svc.service.platforms.sims.forum!.faults;
    faults.add({ route: '/api/info', kind: 'garbage' });
    try {
      const res = await svc.request('GET', '/v1/forum/posts/1a00005', { key });
      expect(res.status).toBe(503);
      expect(res.body.error).toMatchObject({ code: 'upstream_invalid', retryable: true, details: { platform: 'forum' } });
      expect(res.headers.get('x-credits-charged')).toBe('0');
    } finally {
      faults.clear();
    }
    faults.add({ route: '/api/info', kind: 'status', status: 503 });
    try {
      const down = await svc.request('GET', '/v1/forum/posts/1a00005', { key });
      expect(down.body.error.code).toBe('upstream_unavailable');
    } finally {
      faults.clear();
    }
  });
});
