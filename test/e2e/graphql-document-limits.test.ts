import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCUMENT_LIMITS } from '../../schema/pipeline/document-limits.ts';
import { charged } from '../support/assertions.ts';
import { usageOf } from '../support/billing.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { logStatements } from '../support/statements.ts';

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

describe('without a key, aliases cannot multiply introspection or readiness', () => {
  const hundred = (field: string) => `{ ${Array.from({ length: 100 }, (_, i) => `a${i}: ${field}`).join(' ')} }`;

  it("the review's 100 aliases of __schema (9 KB in, 11 MB out): 400 naming the limit and the second key", async () => {
    const res = await svc.graphql(hundred('__schema { types { description fields { description args { description } type { description } } } }'));
    expect(res.status).toBe(400);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'invalid_request', details: { field: 'query', limit: 'rootFieldKeys', maximum: 1, path: 'a1' } });
  });

  it('100 aliases of readiness: 400, and the database is not asked once', async () => {
    const log = logStatements(svc);
    try {
      const res = await svc.graphql(hundred('readiness { status }'));
      expect(res.status).toBe(400);
      expect(res.body.errors[0].extensions.details).toMatchObject({ limit: 'rootFieldKeys', path: 'a1' });
      expect(log.texts.filter((sql) => /select 1/i.test(sql))).toEqual([]);
    } finally {
      log.stop();
    }
  });

  it('aliases inside one __schema: 400 naming the aliased path', async () => {
    const res = await svc.graphql(`{ __schema { types { ${Array.from({ length: 50 }, (_, i) => `f${i}: fields { name }`).join(' ')} } } }`);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.details).toMatchObject({ limit: 'introspectionAliases', maximum: 0, path: '__schema.types.f0' });
  });

  it("GraphiQL's introspection and a single readiness are answered as before", async () => {
    const introspection = await svc.graphql(getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true }));
    expect(introspection.status).toBe(200);
    expect(introspection.body.data.__schema.queryType.name).toBe('Query');
    const ready = await svc.graphql('{ readiness { status } health { status } readiness { service } }');
    expect(ready.body.data.readiness).toMatchObject({ status: 'ok', service: expect.any(String) });
  });
});
