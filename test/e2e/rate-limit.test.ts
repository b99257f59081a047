import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundedWorkspace } from '../support/billing.ts';
import { charged } from '../support/assertions.ts';
import { startTestService, type TestService } from '../support/service.ts';

/** The weighted per-minute limit per account, through the HTTP surfaces. Free tier ceiling: 10 per minute here. */
let svc: TestService;
const CEILING = 10;

beforeAll(async () => {
  svc = await startTestService({ tiers: { free: { rateLimitPerMinute: CEILING } } });
});
afterAll(async () => {
  await svc?.close();
});

describe('rate limits', () => {
  it('weights add up: searches count 2, whoami 1, and the call past the ceiling is 429 with Retry-After', async () => {
    const { key } = await fundedWorkspace(svc, 100);
    for (let i = 0; i < 4; i++) {
      const res = await svc.request('POST', '/v1/forum/search', { key, body: { query: 'nothing-matches-qzxv' } });
      expect(res.status).toBe(200);
    }
    expect((await svc.request('GET', '/v1/whoami', { key })).status).toBe(200);
    expect((await svc.graphql('{ whoami { keyId } }', undefined, key)).status).toBe(200);
    const refused = await svc.request('GET', '/v1/whoami', { key });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 'rate_limited', retryable: true });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(charged(refused)).toBe(0);
  });

  it('a GraphQL request heavier than the whole window is a 400 saying so, not a retry', async () => {
    const { key } = await fundedWorkspace(svc, 100);
    const fields = Array.from({ length: 6 }, (_, i) => `s${i}: searchSubforums(query: "x") { nextCursor }`).join(' ');
    const res = await svc.graphql(`{ ${fields} }`, undefined, key);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'invalid_request', details: { weight: 12, rateLimitPerMinute: CEILING } });
    expect(res.headers.get('retry-after')).toBeNull();
    expect((await svc.request('GET', '/v1/whoami', { key })).status).toBe(200);
  });

  it('a request refused after authentication spends its weight; one refused before it (no account known) does not', async () => {
    const { key } = await fundedWorkspace(svc, 100);
    // Not counted: an unknown body member is refused before the key is looked at.
    for (let i = 0; i < CEILING; i++) {
      const unread = await svc.request('POST', '/v1/forum/search', { key, body: { query: 'x', bogus: 1 } });
      expect(unread.status).toBe(400);
    }
    // Nor are GraphQL documents refused before execution: a syntax error, a validation error, a document limit.
    const aliases = `{ ${Array.from({ length: 101 }, (_, i) => `w${i}: whoami { keyId }`).join(' ')} }`;
    for (let i = 0; i < CEILING; i++) {
      for (const query of ['{ whoami { ', '{ whoami { bogus } }', aliases]) {
        const refused = await svc.graphql(query, undefined, key);
        expect([query.slice(0, 20), refused.body.data, refused.body.errors[0].extensions.code]).toEqual([query.slice(0, 20), undefined, 'invalid_request']);
      }
    }
    // Counted: a bound refused (search weighs 2, twice) and a GraphQL query over the 5,000-credit ceiling (2).
    for (let i = 0; i < 2; i++) {
      const outOfBounds = await svc.request('POST', '/v1/forum/search', { key, body: { query: 'x', limit: 1000 } });
      expect(outOfBounds.status).toBe(400);
      expect(charged(outOfBounds)).toBe(0);
    }
    const costly = await svc.graphql('{ found: microblogPostSearch(query: "api", limit: 100) { items { authorProfile { followers { items { id } } } } } }', undefined, key);
    expect(costly.body.errors[0].extensions.code).toBe('query_too_costly');
    for (let i = 0; i < 4; i++) expect((await svc.request('GET', '/v1/whoami', { key })).status).toBe(200);
    const refused = await svc.request('GET', '/v1/whoami', { key });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limited');
  });

  it('a billed call refused by the rate limit costs nothing', async () => {
    const { key } = await fundedWorkspace(svc, 100);
    for (let i = 0; i < 5; i++) await svc.request('POST', '/v1/forum/search', { key, body: { query: 'nothing-matches-qzxv' } });
    const refused = await svc.request('POST', '/v1/forum/search', { key, body: { query: 'nothing-matches-qzxv' } });
    expect(refused.status).toBe(429);
    expect(charged(refused)).toBe(0);
    expect(Number(refused.headers.get('x-credits-remaining'))).toBe(95);
  });

  it('the window is per account: another workspace is not affected', async () => {
    const first = await fundedWorkspace(svc, 0);
    for (let i = 0; i < CEILING; i++) await svc.request('GET', '/v1/whoami', { key: first.key });
    expect((await svc.request('GET', '/v1/whoami', { key: first.key })).status).toBe(429);
    const other = await fundedWorkspace(svc, 0);
    expect((await svc.request('GET', '/v1/whoami', { key: other.key })).status).toBe(200);
  });

  it('two keys of one workspace share the window', async () => {
    const { key, workspaceId } = await fundedWorkspace(svc, 0);
    const { key: second } = await svc.newKey({ workspaceId });
    for (let i = 0; i < CEILING; i++) await svc.request('GET', '/v1/whoami', { key: i % 2 ? key : second });
    expect((await svc.request('GET', '/v1/whoami', { key: second })).status).toBe(429);
  });

  it.runIf(process.env.TEST_DATABASE_URL)('is shared by two service instances on one database', async () => {
    const other = await startTestService({ shareDatabaseWith: svc, tiers: { free: { rateLimitPerMinute: CEILING } } });
    try {
      const { key } = await fundedWorkspace(svc, 0);
      for (let i = 0; i < CEILING; i++) {
        const res = await (i % 2 ? svc : other).request('GET', '/v1/whoami', { key });
        expect(res.status).toBe(200);
      }
      expect((await other.request('GET', '/v1/whoami', { key })).status).toBe(429);
      expect((await svc.request('GET', '/v1/whoami', { key })).status).toBe(429);
    } finally {
      await other.close();
    }
  });

  it.runIf(process.env.TEST_DATABASE_URL)('refuses to start an instance whose tier table differs from a running one, naming SVC_TIERS', async () => {
    // Its ceiling would be another: the shared window would refuse or admit the same call depending on who answers.
    await expect(startTestService({ shareDatabaseWith: svc, tiers: { free: { rateLimitPerMinute: CEILING * 2 } } })).rejects.toThrow(/SVC_TIERS differs/);
    expect((await svc.request('GET', '/health')).status).toBe(200);
  });
});
