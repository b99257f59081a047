import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { connectMcp } from '../support/mcp.ts';
import { withFragments } from '../../schema/zod-graphql.ts';
import { getForumPost, getForumPostComments } from '../../schema/catalogue/forum-posts.ts';
import { searchForumPosts, searchSubforumPosts, searchSubforums } from '../../schema/catalogue/forum-search.ts';
import { getSubforum, lookupForum } from '../../schema/catalogue/forum-lookup.ts';
import type { OperationSpec } from '../../schema/catalogue/operation.ts';
import { charged } from '../support/assertions.ts';

let svc: TestService;
let key: string;

beforeAll(async () => {
  svc = await startTestService();
});
beforeEach(async () => {
  ({ key } = await svc.newKey({ scopes: ['read:forum'] }));
});
afterAll(async () => {
  await svc?.close();
});

interface Case {
  op: OperationSpec;
  input: Record<string, unknown>;
  /** Where the REST envelope's `data` sits in the GraphQL payload, and which payload members are meta. */
  dataOf: (payload: Record<string, unknown>) => unknown;
  metaOf: (payload: Record<string, unknown>) => Record<string, unknown>;
}

const whole = (p: Record<string, unknown>) => p;
const items = (p: Record<string, unknown>) => p.items;
const pageMeta = (p: Record<string, unknown>) => ({ nextCursor: p.nextCursor, ...(p.omittedNsfw != null ? { omittedNsfw: p.omittedNsfw } : {}) });

const CASES: Case[] = [
  { op: getForumPost as OperationSpec, input: { id: '1a00006' }, dataOf: whole, metaOf: () => ({}) },
  { op: getSubforum as OperationSpec, input: { name: 'pics' }, dataOf: whole, metaOf: () => ({}) },
  { op: getForumPostComments as OperationSpec, input: { id: '1a0000c', limit: 20, depth: 3, sort: 'top' }, dataOf: items, metaOf: (p) => ({ nextCursor: p.nextCursor }) },
  { op: searchSubforums as OperationSpec, input: { query: 'corner', limit: 5 }, dataOf: items, metaOf: pageMeta },
  { op: searchForumPosts as OperationSpec, input: { query: 'nsfw:yes', limit: 20 }, dataOf: items, metaOf: pageMeta },
  { op: searchSubforumPosts as OperationSpec, input: { name: 'pics', query: 'a', limit: 10, sort: 'new' }, dataOf: items, metaOf: pageMeta },
  {
    op: lookupForum as OperationSpec,
    input: { posts: ['1a00005', 'zzzzzz9'], comments: ['g001udf'], subforums: ['r/pics', 'secretclub'] },
    dataOf: ({ missing: _missing, ...data }) => data,
    metaOf: (p) => ({ missing: p.missing }),
  },
];

function restRequest(op: OperationSpec, input: Record<string, unknown>) {
  const rest = { ...input };
  let path = op.rest.path;
  for (const [, name] of op.rest.path.matchAll(/:([A-Za-z0-9_]+)/g)) {
    path = path.replace(`:${name}`, encodeURIComponent(String(rest[name])));
    delete rest[name];
  }
  if (op.rest.method === 'GET') {
    const query = new URLSearchParams(Object.entries(rest).map(([k, v]) => [k, String(v)]));
    return svc.request('GET', query.size ? `${path}?${query}` : path, { key });
  }
  return svc.request(op.rest.method, path, { key, body: rest });
}

describe('REST, GraphQL and MCP return the same data and meta for the same call', () => {
  it.each(CASES.map((c) => [c.op.operationId, c] as const))('%s', async (_id, c) => {
    const rest = await restRequest(c.op, c.input);
    expect(rest.status, JSON.stringify(rest.body)).toBe(200);
    // Provenance says when each call's own upstream answer came: same upstream on every surface, not the same instant.
    const { requestId: _rid, provenance, ...restMeta } = rest.body.meta;
    expect(provenance).toEqual([{ platform: 'forum', upstream: 'simulated', fetchedAt: expect.any(String) }]);

    const gql = await svc.graphql(withFragments(c.op.graphql.document), c.input, key);
    expect(gql.body.errors, JSON.stringify(gql.body.errors)).toBeUndefined();
    const payload = gql.body.data[c.op.graphql.field] as Record<string, unknown>;
    expect(c.dataOf(payload)).toEqual(rest.body.data);
    expect(c.metaOf(payload)).toEqual(restMeta);
    const sameUpstream = provenance.map((entry: object) => ({ ...entry, fetchedAt: expect.any(String) }));
    expect(gql.body.extensions.provenance).toEqual(sameUpstream);

    const mcp = await connectMcp(svc.url, key);
    try {
      const result = await mcp.callTool({ name: c.op.tool, arguments: c.input });
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      const body = result.structuredContent as { data: unknown; meta: Record<string, unknown> };
      const { requestId: _mid, provenance: mcpProvenance, ...mcpMeta } = body.meta;
      expect(mcpProvenance).toEqual(sameUpstream);
      expect(body.data).toEqual(rest.body.data);
      expect(mcpMeta).toEqual(restMeta);
    } finally {
      await mcp.close();
    }
    // Each surface billed the same call the same way.
    expect(gql.body.extensions.credits.charged).toBe(charged(rest));
  });

  it('errors agree: a not-public community is 404 with the reason on all three', async () => {
    const rest = await svc.request('GET', '/v1/forum/subforums/secretclub', { key });
    expect([rest.status, rest.body.error.code, rest.body.error.details.reason]).toEqual([404, 'not_found', 'private']);
    const gql = await svc.graphql(withFragments(getSubforum.graphql.document), { name: 'secretclub' }, key);
    expect(gql.body.errors[0].extensions).toMatchObject({ code: 'not_found', details: { reason: 'private' } });
    const mcp = await connectMcp(svc.url, key);
    try {
      const result = await mcp.callTool({ name: 'get_subforum', arguments: { name: 'secretclub' } });
      expect(result.isError).toBe(true);
      expect((result.structuredContent as { error: { code: string; details: { reason: string } } }).error).toMatchObject({ code: 'not_found', details: { reason: 'private' } });
    } finally {
      await mcp.close();
    }
  });

  it('a share link is refused on all three surfaces', async () => {
    const input = { posts: ['https://www.reddit.com/r/pics/s/Xy12'] };
    expect((await svc.request('POST', '/v1/forum/lookup', { key, body: input })).body.error.code).toBe('unsupported_link');
    const gql = await svc.graphql(withFragments(lookupForum.graphql.document), input, key);
    expect(gql.body.errors[0].extensions.code).toBe('unsupported_link');
    const mcp = await connectMcp(svc.url, key);
    try {
      const result = await mcp.callTool({ name: 'lookup_forum', arguments: input });
      expect(result.isError).toBe(true);
      expect((result.structuredContent as { error: { code: string } }).error.code).toBe('unsupported_link');
    } finally {
      await mcp.close();
    }
  });
});
