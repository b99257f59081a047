import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.close();
});

describe('a malformed request on an account that cannot pay', () => {
  it('is 400 naming the field, not 402, on REST and GraphQL', async () => {
    const { key, workspaceId } = await svc.newKey({ scopes: ['read:social'] });
    await svc.operator('POST', `/operator/workspaces/${workspaceId}/pause`, {});
    const rest = await svc.request('POST', '/v1/forum/search', { key, body: { query: 'x', limit: 500 } });
    expect(rest.status).toBe(400);
    expect(rest.body.error.details.field).toBe('limit');
    expect(rest.headers.get('x-credits-charged')).toBe('0');
    const graphql = await svc.graphql('{ searchForumPosts(query: "x", limit: 500) { nextCursor } }', {}, key);
    expect(graphql.body.errors[0].extensions).toMatchObject({ code: 'invalid_request', details: { field: 'limit' } });
    const valid = await svc.request('POST', '/v1/forum/search', { key, body: { query: 'x', limit: 5 } });
    expect(valid.status).toBe(402);
  });
});

describe('a missing required member', () => {
  it('is named in the API’s own words', async () => {
    const { key } = await svc.newKey({ scopes: ['read:social'] });
    const res = await svc.request('POST', '/v1/forum/search', { key, body: { limit: 5 } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', message: "'query' is required.", details: { field: 'query' } });
  });
});
