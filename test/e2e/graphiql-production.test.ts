import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

/** Production's /graphql (config.graphiql false, as configFromEnv sets it there): queries, and no GraphiQL page. */
describe('GraphiQL off (production)', () => {
  let svc: TestService;

  beforeAll(async () => {
    svc = await startTestService({ graphiql: false });
  });
  afterAll(async () => {
    await svc?.close();
  });

  it('a browser GET of /graphql gets no page loading scripts from unpkg: 406, nothing but JSON kinds offered', async () => {
    const res = await svc.request('GET', '/graphql', { headers: { accept: 'text/html' } });
    expect(res.status).toBe(406);
    expect(String(res.body)).not.toMatch(/graphiql|unpkg/i);
  });

  it('queries still run', async () => {
    const res = await svc.graphql('{ health { status } }');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ health: { status: 'ok' } });
  });
});
