import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCUMENT_LIMITS } from '../../schema/pipeline/document-limits.ts';
import { charged } from '../support/assertions.ts';
import { usageOf } from '../support/billing.ts';
import { startTestService, type TestService } from '../support/service.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.close();
});

const aliased = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: health { status }`).join(' ')} }`;

describe('a GraphQL document past its limits is refused before it is validated or run', () => {
  it("the reviewer's 10,000 aliases: 400 naming the token limit, parsing stopped; /health beside it answers", async () => {
    const flood = aliased(10_000);
    // Without a key, its 209 KB are over the keyless body limit (413) before any of it is read as a document.
    const { key } = await svc.newKey();
    const [refused, health] = await Promise.all([
      svc.request('POST', '/graphql', { key, body: { query: flood }, headers: { accept: 'application/json' } }),
      svc.request('GET', '/health'),
    ]);
    expect(refused.status).toBe(400);
    expect(refused.body.data).toBeUndefined();
    expect(refused.body.errors).toHaveLength(1);
    expect(refused.body.errors[0].extensions).toMatchObject({ code: 'invalid_request', retryable: false, details: { field: 'query', limit: 'tokens', maximum: DOCUMENT_LIMITS.tokens } });
    expect(health.status).toBe(200);
  });

  it('aliases past the limit with a key: 400 naming aliases, charged nothing, whatever the Accept header', async () => {
    const { key } = await svc.newKey();
    const before = await usageOf(svc, key);
    for (const accept of ['application/json', 'application/graphql-response+json']) {
      const res = await svc.request('POST', '/graphql', { key, body: { query: aliased(DOCUMENT_LIMITS.aliases + 1) }, headers: { accept } });
      expect(res.status).toBe(400);
      expect(res.body.errors[0].extensions).toMatchObject({ code: 'invalid_request', details: { field: 'query', limit: 'aliases', maximum: DOCUMENT_LIMITS.aliases } });
      expect(res.body.errors[0].message).toContain(`${DOCUMENT_LIMITS.aliases} aliases`);
      expect(charged(res)).toBe(0);
    }
    expect((await usageOf(svc, key)).balance).toBe(before.balance);
  });

  it('a document at the limits runs', async () => {
    const res = await svc.graphql(aliased(DOCUMENT_LIMITS.aliases));
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data)).toHaveLength(DOCUMENT_LIMITS.aliases);
  });
});
