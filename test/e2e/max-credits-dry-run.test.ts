import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp } from '../support/mcp.ts';
import { startTestService, type TestService } from '../support/service.ts';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.close();
});

const balanceOf = async (key: string) => (await svc.request('GET', '/v1/usage', { key })).body.data.balance as number;
const POST = '/v1/forum/posts/1a00005';
const MEMBERS = '/v1/microblog/lists/1500000000000000001/members';

describe('maxCredits on REST (header x-max-credits)', () => {
  it('a call whose worst case exceeds the ceiling is refused free with 400 naming it', async () => {
    const { key } = await svc.newKey();
    const res = await svc.request('GET', POST, { key, headers: { 'x-max-credits': '3' } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.details).toEqual({ field: 'x-max-credits', reason: 'max_credits_exceeded', maxCredits: 3, worstCaseCredits: 4 });
    expect(res.headers.get('x-credits-charged')).toBe('0');
    expect(await balanceOf(key)).toBe(5000);
  });

  it('a ceiling at the worst case serves the call as usual', async () => {
    const { key } = await svc.newKey();
    const res = await svc.request('GET', POST, { key, headers: { 'x-max-credits': '4' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-credits-charged')).toBe('4');
    expect(res.body.meta.partial).toBeUndefined();
  });

  it('a paginated call is served as a smaller page, flagged in meta.partial, and its cursor continues the request as sent', async () => {
    const { key } = await svc.newKey();
    const first = await svc.request('GET', `${MEMBERS}?limit=100`, { key, headers: { 'x-max-credits': '11' } });
    expect(first.status).toBe(200);
    expect(first.body.meta.partial).toEqual({ reason: 'max_credits', maxCredits: 11, limit: 10, limitAsked: 100 });
    expect(first.body.data.length).toBeLessThanOrEqual(10);
    const charged = Number(first.headers.get('x-credits-charged'));
    expect(charged).toBe(1 + first.body.data.length);
    expect(charged).toBeLessThanOrEqual(11);
    expect(first.body.meta.nextCursor).toEqual(expect.any(String));
    const next = await svc.request('GET', `${MEMBERS}?limit=100&cursor=${encodeURIComponent(first.body.meta.nextCursor)}`, { key, headers: { 'x-max-credits': '11' } });
    expect(next.status).toBe(200);
    expect(Number(next.headers.get('x-credits-charged'))).toBeLessThanOrEqual(11);
    // Without the ceiling the same cursor continues the same request (limit=100), served in full.
    const full = await svc.request('GET', `${MEMBERS}?limit=100&cursor=${encodeURIComponent(first.body.meta.nextCursor)}`, { key });
    expect(full.status).toBe(200);
    expect(full.body.meta.partial).toBeUndefined();
  });

  it('a malformed ceiling is a 400 naming the header', async () => {
    const { key } = await svc.newKey();
    const res = await svc.request('GET', POST, { key, headers: { 'x-max-credits': 'lots' } });
    expect(res.status).toBe(400);
    expect(res.body.error.details.field).toBe('x-max-credits');
  });
});

describe('dry run on REST (header x-dry-run)', () => {
  it('returns the estimate with data null, runs nothing and charges 0', async () => {
    const { key } = await svc.newKey();
    const res = await svc.request('GET', `${MEMBERS}?limit=50`, { key, headers: { 'x-dry-run': 'true' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toBeNull();
    expect(res.body.meta).toEqual({ requestId: expect.any(String), dryRun: true, estimate: { minimumCredits: 1, worstCaseCredits: 51, rateLimitWeight: 3 } });
    expect(res.headers.get('x-credits-charged')).toBe('0');
    expect(res.headers.get('x-credits-remaining')).toBe('5000');
  });

  it('with a ceiling, rehearses what the call would do', async () => {
    const { key } = await svc.newKey();
    const partial = await svc.request('GET', `${MEMBERS}?limit=50`, { key, headers: { 'x-dry-run': 'true', 'x-max-credits': '21' } });
    expect(partial.body.meta.estimate).toEqual({ minimumCredits: 1, worstCaseCredits: 21, rateLimitWeight: 3, limit: 20 });
    expect(partial.body.meta.partial).toEqual({ reason: 'max_credits', maxCredits: 21, limit: 20, limitAsked: 50 });
    const refused = await svc.request('GET', POST, { key, headers: { 'x-dry-run': 'true', 'x-max-credits': '1' } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.field).toBe('x-max-credits');
  });

  it('a dry run refuses a cursor the call would refuse, and accepts the one the call would', async () => {
    const { key } = await svc.newKey();
    const dry = { 'x-dry-run': 'true' };
    const first = await svc.request('GET', `${MEMBERS}?limit=2`, { key });
    const cursor = first.body.meta.nextCursor as string;
    expect(cursor).toEqual(expect.any(String));
    for (const [query, reason] of [[`cursor=garbage&limit=2`, /malformed/], [`cursor=${encodeURIComponent(cursor)}&limit=3`, /another request/]] as const) {
      const real = await svc.request('GET', `${MEMBERS}?${query}`, { key });
      const dryRun = await svc.request('GET', `${MEMBERS}?${query}`, { key, headers: dry });
      expect(real.body.error).toMatchObject({ code: 'invalid_cursor', message: expect.stringMatching(reason) });
      expect([dryRun.status, dryRun.body.error]).toEqual([real.status, real.body.error]);
      expect(dryRun.headers.get('x-credits-charged')).toBe('0');
    }
    const accepted = await svc.request('GET', `${MEMBERS}?cursor=${encodeURIComponent(cursor)}&limit=2`, { key, headers: dry });
    expect([accepted.status, accepted.body.meta.dryRun]).toEqual([200, true]);
  });

  it('a dry run of a change changes nothing', async () => {
    const { key } = await svc.newKey({ scopes: ['monitors:write', 'read:social'] });
    const res = await svc.request('POST', '/v1/monitors', { key, body: { name: 'dry', target: { kind: 'search', keywords: 'rust' } }, headers: { 'x-dry-run': 'true' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toBeNull();
    // The create is free; its baseline run (a search from both platforms) holds 1 + 100 × 3 and 1 + 100 × 1.
    expect(res.body.meta.estimate).toEqual({ minimumCredits: 2, worstCaseCredits: 402, rateLimitWeight: 1 });
    expect((await svc.request('GET', '/v1/monitors', { key })).body.data).toEqual([]);
  });

  it('a dry run takes no Idempotency-Key: the real call after it with the same key runs; x-dry-run false keeps the key', async () => {
    const { key } = await svc.newKey({ scopes: ['monitors:write', 'read:social'] });
    const body = { name: 'once', target: { kind: 'search', keywords: 'rust' } };
    const headers = { 'idempotency-key': 'dry-then-real-0001' };
    const dry = await svc.request('POST', '/v1/monitors', { key, body, headers: { ...headers, 'x-dry-run': 'true' } });
    expect(dry.body.data).toBeNull();
    const real = await svc.request('POST', '/v1/monitors', { key, body, headers: { ...headers, 'x-dry-run': 'false' } });
    expect(real.status).toBe(201);
    expect(real.headers.get('idempotent-replayed')).toBeNull();
    const again = await svc.request('POST', '/v1/monitors', { key, body, headers: { ...headers, 'x-dry-run': 'false' } });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data.id).toBe(real.body.data.id);
  });
});

describe('maxCredits and dry run on GraphQL (extensions, or the same headers)', () => {
  it('extensions.maxCredits below the worst case: refused free, 400 naming it', async () => {
    const { key } = await svc.newKey();
    const res = await svc.request('POST', '/graphql', { key, body: { query: '{ forumPost(id: "1a00005") { id } }', extensions: { maxCredits: 3 } } });
    expect(res.body.data ?? null).toBeNull();
    expect(res.body.errors[0].extensions.code).toBe('invalid_request');
    expect(res.body.errors[0].extensions.details).toEqual({ field: 'extensions.maxCredits', reason: 'max_credits_exceeded', maxCredits: 3, worstCaseCredits: 4 });
    expect(res.headers.get('x-credits-charged')).toBe('0');
    expect(await balanceOf(key)).toBe(5000);
  });

  it('a header ceiling is not lifted by a higher one in extensions: the lower applies', async () => {
    const { key } = await svc.newKey();
    const res = await svc.request('POST', '/graphql', { key, headers: { 'x-max-credits': '3' }, body: { query: '{ forumPost(id: "1a00005") { id } }', extensions: { maxCredits: 1000 } } });
    // Before: served under the extension's 1000 (GraphQL review h).
    expect(res.body.errors[0].extensions.details).toEqual({ field: 'x-max-credits', reason: 'max_credits_exceeded', maxCredits: 3, worstCaseCredits: 4 });
    expect(res.headers.get('x-credits-charged')).toBe('0');
  });

  it('a walk that comes to more than the ceiling is withheld and charged nothing', async () => {
    const { key } = await svc.newKey();
    // The root field's worst case is 2 (1 + 1 post); its author's profile adds 2 more.
    const res = await svc.request('POST', '/graphql', {
      key,
      body: { query: '{ microblogPost(id: "2072653763834810367") { id authorProfile { id } } }', extensions: { maxCredits: 2 } },
    });
    expect(res.body.errors[0].extensions.details.field).toBe('extensions.maxCredits');
    expect(res.body.data ?? null).toBeNull();
    expect(res.headers.get('x-credits-charged')).toBe('0');
    expect(await balanceOf(key)).toBe(5000);
  });

  it('header x-dry-run: data null and the estimate of every root field in extensions', async () => {
    const { key } = await svc.newKey();
    const res = await svc.request('POST', '/graphql', {
      key,
      headers: { 'x-dry-run': 'true' },
      body: { query: '{ forumPost(id: "1a00005") { id } microblogListMembers(id: "1500000000000000001", limit: 30) { items { id } } }' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toBeNull();
    expect(res.body.extensions.dryRun).toBe(true);
    expect(res.body.extensions.estimate).toEqual({ minimumCredits: 2, worstCaseCredits: 4 + 31, rateLimitWeight: 4 });
    expect(res.body.extensions.credits).toEqual({ charged: 0, remaining: 5000, worstCase: 35 });
  });

  it('extensions.dryRun must be a boolean', async () => {
    const { key } = await svc.newKey();
    const res = await svc.request('POST', '/graphql', { key, body: { query: '{ forumPost(id: "1a00005") { id } }', extensions: { dryRun: 'yes' } } });
    expect(res.body.errors[0].extensions.details.field).toBe('extensions.dryRun');
  });
});

describe('maxCredits and dry run on MCP (tool arguments)', () => {
  it('maxCredits below the worst case: a 400 tool error naming it, nothing charged; dryRun: the estimate, nothing charged', async () => {
    const { key } = await svc.newKey();
    const client = await connectMcp(svc.url, key);
    try {
      const tools = await client.listTools();
      const tool = tools.tools.find((t) => t.name === 'get_forum_post');
      expect(Object.keys(tool?.inputSchema.properties ?? {})).toEqual(['id', 'maxCredits', 'dryRun']);
      expect(tool?.description).toContain('Pass dryRun: true for the estimate');
      expect(Object.keys(tools.tools.find((t) => t.name === 'get_usage')?.inputSchema.properties ?? {})).toEqual([]);
      const refused = await client.callTool({ name: 'get_forum_post', arguments: { id: '1a00005', maxCredits: 3 } });
      expect(refused.isError).toBe(true);
      expect((refused.structuredContent as { error: { details: unknown } }).error.details).toEqual({ field: 'maxCredits', reason: 'max_credits_exceeded', maxCredits: 3, worstCaseCredits: 4 });
      const dry = await client.callTool({ name: 'get_microblog_list_members', arguments: { id: '1500000000000000001', limit: 100, dryRun: true, maxCredits: 41 } });
      expect(dry.isError).toBeFalsy();
      expect(dry.structuredContent).toEqual({
        data: null,
        meta: { requestId: expect.any(String), dryRun: true, estimate: { minimumCredits: 1, worstCaseCredits: 41, rateLimitWeight: 3, limit: 40 }, partial: { reason: 'max_credits', maxCredits: 41, limit: 40, limitAsked: 100 } },
      });
      expect(dry._meta?.credits).toEqual({ charged: 0, remaining: 5000, worstCase: 41 });
      const served = await client.callTool({ name: 'get_forum_post', arguments: { id: '1a00005', maxCredits: 4 } });
      expect(served.isError).toBeFalsy();
      expect(served._meta?.credits).toEqual({ charged: 4, remaining: 4996, worstCase: 4 });
      const free = await client.callTool({ name: 'get_usage', arguments: { dryRun: true } });
      expect(free.isError).toBe(true);
      expect((free.structuredContent as { error: { details: { field: string } } }).error.details.field).toBe('dryRun');
    } finally {
      await client.close();
    }
  });
});

describe('a dry run weighs 1 against the rate limit', () => {
  let small: TestService;
  beforeAll(async () => {
    small = await startTestService({ tiers: { free: { rateLimitPerMinute: 2 } } });
  });
  afterAll(async () => {
    await small?.close();
  });

  it('an operation heavier than the whole window is refused, its dry run is not', async () => {
    const { key } = await small.newKey();
    const real = await small.request('GET', MEMBERS, { key });
    expect(real.status).toBe(400);
    expect(real.body.error.details.weight).toBe(3);
    const dry = await small.request('GET', MEMBERS, { key, headers: { 'x-dry-run': 'true' } });
    expect(dry.status).toBe(200);
    expect(dry.body.meta.estimate.rateLimitWeight).toBe(3);
  });
});

describe('/openapi.json', () => {
  it('documents the headers and meta members on billed operations only', async () => {
    const doc = (await svc.request('GET', '/openapi.json')).body;
    const post = doc.paths['/v1/forum/posts/{id}'].get;
    expect(post.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)).toEqual(['path:id', 'header:x-max-credits', 'header:x-dry-run']);
    const meta = post.responses['200'].content['application/json'].schema.properties.meta.properties;
    expect(Object.keys(meta)).toEqual(expect.arrayContaining(['dryRun', 'estimate', 'partial']));
    const usage = doc.paths['/v1/usage'].get;
    expect(usage.parameters).toBeUndefined();
  });
});
