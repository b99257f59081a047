import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../schema/catalogue/index.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * Bounded fuzzing of every REST operation with malformed input: random values of the wrong types, oversized and
 * odd strings, junk JSON, junk paths. Whatever comes in, the answer is a 4xx envelope with a code, never a 5xx.
 * Deterministic (seeded) and bounded (a fixed number of requests), loopback only.
 */
let svc: TestService;
let key: string;

beforeAll(async () => {
  svc = await startTestService({ tiers: { free: { rateLimitPerMinute: 1_000_000 } } });
  ({ key } = await svc.newKey({ scopes: ['read:social', 'usage:read'] }));
});
afterAll(async () => {
  await svc?.close();
});

function rng(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

const JUNK: unknown[] = [null, true, -1, 0, 1e308, -0.5, '', ' ', 'x'.repeat(5000), '../../etc/passwd', '%00', '\u0000', '😀'.repeat(30), "' OR 1=1 --", '{"a":1}', [], [null], [1, 2], {}, { $ne: 1 }, 'from:@x OR to:y', 'a\nb'];

describe('malformed input never produces a 5xx', () => {
  const random = rng(20261121);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];

  it.each(OPERATIONS.filter((op) => op.rest.path.startsWith('/v1/')).map((op) => [op.operationId, op] as const))('%s', async (_id, op) => {
    const names = Object.keys(op.input.shape);
    for (let round = 0; round < 12; round++) {
      let path = op.rest.path.replace(/:([A-Za-z0-9_]+)/g, () => encodeURIComponent(String(pick(JUNK))) || 'x');
      const members = Object.fromEntries(names.filter(() => random() < 0.6).map((name) => [name, pick(JUNK)]));
      if (random() < 0.2) members[`unknown_${round}`] = 1;
      let res;
      if (op.rest.method === 'GET') {
        const query = new URLSearchParams(Object.entries(members).map(([name, value]) => [name, typeof value === 'string' ? value : JSON.stringify(value)]));
        res = await svc.request('GET', query.size ? `${path}?${query}` : path, { key });
      } else if (random() < 0.25) {
        res = await svc.request(op.rest.method, path, { key, rawBody: pick(['{', '[1,', 'null', '"x"', '{"a":', '\u0000']), headers: { 'content-type': 'application/json' } });
      } else {
        res = await svc.request(op.rest.method, path, { key, body: members });
      }
      expect(res.status, `${op.rest.method} ${path} ${JSON.stringify(members).slice(0, 300)} → ${JSON.stringify(res.body).slice(0, 300)}`).toBeLessThan(500);
      if (res.status >= 400) {
        expect(res.body.error.code).toEqual(expect.any(String));
        expect(res.body.meta.requestId).toEqual(expect.any(String));
      }
      path = '';
    }
  });

  it('junk paths under /v1 are 404 or 405 envelopes', async () => {
    for (const path of ['/v1', '/v1/', '/v1/forum', '/v1/forum/posts', '/v1/forum/posts/a/b/c', '/v1/%E0%A4%A', '/v1/microblog/users/x/y/z', '/v1//whoami']) {
      const res = await svc.request('GET', path, { key });
      expect([404, 405]).toContain(res.status);
      expect(res.body.error.code).toEqual(expect.any(String));
    }
  });
});
