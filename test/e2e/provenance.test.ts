import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp } from '../support/mcp.ts';
import { startTestService, type TestService } from '../support/service.ts';

const NOW = new Date('2026-11-24T12:34:56.000Z');
let svc: TestService;
let key: string;

beforeAll(async () => {
  svc = await startTestService({ now: () => NOW });
  ({ key } = await svc.newKey());
});
afterAll(async () => {
  await svc?.close();
});

const FORUM = { platform: 'forum', upstream: 'simulated', fetchedAt: NOW.toISOString() };
const MICROBLOG = { platform: 'microblog', upstream: 'simulated', fetchedAt: NOW.toISOString() };

describe('meta.provenance: which upstream answered, and when', () => {
  it('REST: on a read, beside the items, whose own fields stay the platform’s', async () => {
    const res = await svc.request('GET', '/v1/forum/posts/1a00005', { key });
    expect(res.status).toBe(200);
    expect(res.body.meta.provenance).toEqual([FORUM]);
    expect(res.body.data).not.toHaveProperty('fetchedAt');
  });

  it('GraphQL: in extensions, one entry per platform the request read', async () => {
    const res = await svc.graphql('{ forumPost(id: "1a00005") { id } microblogList(id: "1500000000000000001") { id } }', {}, key);
    expect(res.body.errors).toBeUndefined();
    expect([...res.body.extensions.provenance].sort((a: { platform: string }, b: { platform: string }) => a.platform.localeCompare(b.platform))).toEqual([FORUM, MICROBLOG]);
  });

  it('MCP: in the result’s meta', async () => {
    const client = await connectMcp(svc.url, key);
    try {
      const result = await client.callTool({ name: 'get_microblog_list', arguments: { id: '1500000000000000001' } });
      expect((result.structuredContent as { meta: { provenance: unknown } }).meta.provenance).toEqual([MICROBLOG]);
    } finally {
      await client.close();
    }
  });

  it('absent where nothing was read: an account operation, a dry run, an error', async () => {
    expect((await svc.request('GET', '/v1/usage', { key })).body.meta).not.toHaveProperty('provenance');
    expect((await svc.request('GET', '/v1/forum/posts/1a00005', { key, headers: { 'x-dry-run': 'true' } })).body.meta).not.toHaveProperty('provenance');
    expect((await svc.request('GET', '/v1/forum/posts/zzzzzz9', { key })).body.meta).not.toHaveProperty('provenance');
  });

  it('is documented in /openapi.json on every operation that reads a platform', async () => {
    const doc = (await svc.request('GET', '/openapi.json')).body;
    const meta = doc.paths['/v1/forum/posts/{id}'].get.responses['200'].content['application/json'].schema.properties.meta.properties;
    expect(meta.provenance.items.required).toEqual(['platform', 'upstream', 'fetchedAt']);
    expect(meta.provenance.items.properties.fetchedAt.format).toBe('date-time');
    expect(doc.paths['/v1/usage'].get.responses['200'].content['application/json'].schema.properties.meta.properties).not.toHaveProperty('provenance');
  });
});
