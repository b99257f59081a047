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

describe("a walked edge's arguments are checked before anything runs, as a root field's are", () => {
  const LIST = '1500000000000000001';

  it("the reviewer's members(limit: 1000): 400 naming the field and the path, charged nothing", async () => {
    const { key } = await svc.newKey({ scopes: ['read:social'] });
    const res = await svc.graphql(`{ microblogList(id: "${LIST}") { name members(limit: 1000) { items { id } } } }`, {}, key);
    expect(res.status).toBe(400);
    expect(res.body.data ?? null).toBeNull();
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'invalid_request', details: { field: 'limit', path: 'microblogList.members' } });
    expect(res.body.errors[0].message).toContain("'microblogList.members'");
    expect(res.headers.get('x-credits-charged')).toBe('0');
  });

  it('through a variable and under an alias, the path is the response path', async () => {
    const { key } = await svc.newKey({ scopes: ['read:social'] });
    const res = await svc.graphql(`query($l: Int) { list: microblogList(id: "${LIST}") { m: members(limit: $l) { items { id } } } }`, { l: -5 }, key);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.details).toMatchObject({ field: 'limit', path: 'list.m' });
    expect(res.headers.get('x-credits-charged')).toBe('0');
  });

  it('an edge within its bounds runs', async () => {
    const { key } = await svc.newKey({ scopes: ['read:social'] });
    const res = await svc.graphql(`{ microblogList(id: "${LIST}") { members(limit: 2) { items { id } } } }`, {}, key);
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.microblogList.members.items).toHaveLength(2);
  });
});

describe('GraphQL document validation errors name the member at fault in details.field', () => {
  const ask = (query: string, key: string, accept = 'application/graphql-response+json') => svc.request('POST', '/graphql', { key, body: { query }, headers: { accept } });

  it("a missing required argument is named in the API's own words, on both Accept types", async () => {
    const { key } = await svc.newKey({ scopes: ['read:social'] });
    const strict = await ask('{ microblogUser { id } }', key);
    expect(strict.status).toBe(400);
    expect(strict.body.errors[0]).toMatchObject({ message: "'user' is required.", extensions: { code: 'invalid_request', details: { field: 'user' } } });
    const plain = await ask('{ microblogUser { id } }', key, 'application/json');
    expect(plain.body.errors[0].extensions.details).toEqual({ field: 'user' });
    expect(plain.headers.get('x-credits-charged')).toBe('0');
  });

  it('an unknown argument and an unknown field are named', async () => {
    const { key } = await svc.newKey({ scopes: ['read:social'] });
    const argument = await ask('{ microblogUser(user: "alice", count: 3) { id } }', key);
    expect(argument.status).toBe(400);
    expect(argument.body.errors[0].extensions).toMatchObject({ code: 'invalid_request', details: { field: 'count' } });
    const field = await ask('{ microblogUser(user: "alice") { idd } }', key);
    expect(field.body.errors[0].extensions).toMatchObject({ code: 'invalid_request', details: { field: 'idd' } });
  });

  it('a literal of the wrong type names its argument, and the path of a walked edge, as the argument checks do', async () => {
    const { key } = await svc.newKey({ scopes: ['read:social', 'monitors:write'] });
    const cases: Array<[string, Record<string, string>, string]> = [
      ['{ forumPost(id: 1) { id } }', { field: 'id' }, "Invalid value for 'id': String cannot represent a non string value: 1"],
      ['{ searchForumPosts(query: "x", limit: "x") { nextCursor } }', { field: 'limit' }, "Invalid value for 'limit': "],
      ['{ forumPost(id: null) { id } }', { field: 'id' }, "Invalid value for 'id': "],
      ['{ list: microblogList(id: "1") { ...M } } fragment M on MicroblogList { m: members(limit: "x") { items { id } } }', { field: 'limit', path: 'list.m' }, "Invalid value for 'limit' at 'list.m': "],
      ['mutation { createMonitor(name: "m", target: {kind: "search"}, sources: ["forum", 2]) { id } }', { field: 'sources.1' }, "Invalid value for 'sources.1': "],
      ['query($l: Int = "x") { searchForumPosts(query: "x", limit: $l) { nextCursor } }', { field: 'l' }, "Invalid value for 'l': "],
      ['{ forumPost(id: "a") @skip(if: "no") { id } }', { field: 'if' }, "Invalid value for 'if': "],
    ];
    for (const [query, details, message] of cases) {
      const res = await ask(query, key);
      expect([query, res.status, res.body.errors?.length]).toEqual([query, 400, 1]);
      expect([query, res.body.errors[0].extensions.code, res.body.errors[0].extensions.details]).toEqual([query, 'invalid_request', details]);
      expect(res.body.errors[0].message).toContain(message);
      expect(res.headers.get('x-credits-charged')).toBe('0');
    }
    // An error that names its member already keeps that name: an undefined variable where a literal would be.
    const undefinedVariable = await ask('{ searchForumPosts(query: "x", limit: $l) { nextCursor } }', key);
    expect(undefinedVariable.body.errors[0]).toMatchObject({ message: 'Variable "$l" is not defined.', extensions: { details: { field: 'l' } } });
  });
});

describe('a NUL character (U+0000) in a string that would be stored', () => {
  it('is 400 naming the field on REST and GraphQL, and stores nothing', async () => {
    const { key } = await svc.newKey({ scopes: ['read:social', 'monitors:write', 'webhooks:write'] });
    const cases: Array<[string, unknown, string]> = [
      ['/v1/monitors', { name: 'x\u0000y', target: { kind: 'search', keywords: 'rust' }, schedule: 'manual' }, 'name'],
      ['/v1/monitors', { name: 'm', target: { kind: 'search', keywords: 'ru\u0000st' }, schedule: 'manual' }, 'target.keywords'],
      ['/v1/webhooks', { name: 'hook', url: 'https://1.1.1.1/\u0000x' }, 'url'],
      ['/v1/webhooks', { name: 'a\u0000', url: 'https://1.1.1.1/hook' }, 'name'],
    ];
    for (const [path, body, field] of cases) {
      const res = await svc.request('POST', path, { key, body });
      expect([path, field, res.status, res.body.error?.code, res.body.error?.details?.field]).toEqual([path, field, 400, 'invalid_request', field]);
      expect(res.body.error.message).toContain('U+0000');
    }
    const graphql = await svc.graphql('mutation($name: String!) { createWebhook(name: $name, url: "https://1.1.1.1/hook") { id } }', { name: 'a\u0000' }, key);
    expect(graphql.body.errors[0].extensions).toMatchObject({ code: 'invalid_request', details: { field: 'name' } });
    expect((await svc.request('GET', '/v1/monitors', { key })).body.data).toEqual([]);
    expect((await svc.request('GET', '/v1/webhooks', { key })).body.data).toEqual([]);
  });
});

describe('a lone surrogate in a string that would be stored', () => {
  it('is 400 naming the field on REST, GraphQL and MCP (was a retryable 500 from the jsonb column), and stores nothing', async () => {
    const { key } = await svc.newKey({ scopes: ['read:social', 'monitors:write', 'webhooks:write'] });
    // The review's repro, the surrogate sent as JSON's escape: {"keywords":"rust\udc00"}.
    const rawBody = '{"name":"s","target":{"kind":"search","keywords":"rust\\udc00"},"schedule":"manual"}';
    const rest = await svc.request('POST', '/v1/monitors', { key, rawBody, headers: { 'content-type': 'application/json' } });
    expect([rest.status, rest.body.error?.code, rest.body.error?.retryable, rest.body.error?.details?.field]).toEqual([400, 'invalid_request', false, 'target.keywords']);
    expect(rest.body.error.message).toContain('lone surrogate');
    const name = await svc.request('POST', '/v1/webhooks', { key, body: { name: 'a\ud800', url: 'https://1.1.1.1/hook' } });
    expect([name.status, name.body.error?.details?.field]).toEqual([400, 'name']);
    const graphql = await svc.graphql('mutation($t: JSON!) { createMonitor(name: "s", target: $t, schedule: "manual") { id } }', { t: { kind: 'search', keywords: 'rust\udc00' } }, key);
    expect(graphql.body.errors[0].extensions).toMatchObject({ code: 'invalid_request', details: { field: 'target.keywords' } });
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'create_monitor', arguments: { name: 's', target: { kind: 'search', keywords: 'rust\udc00' }, schedule: 'manual' } } };
    const mcp = await svc.request('POST', '/mcp', { key, body: call, headers: { accept: 'application/json, text/event-stream' } });
    expect(String(typeof mcp.body === 'string' ? mcp.body : JSON.stringify(mcp.body))).toMatch(/"isError":true.*"field":"target\.keywords"|"field":"target\.keywords".*"isError":true/s);
    expect((await svc.request('GET', '/v1/monitors', { key })).body.data).toEqual([]);
    expect((await svc.request('GET', '/v1/webhooks', { key })).body.data).toEqual([]);
  });
});
