import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp } from '../support/mcp.ts';
import { fundedWorkspace, usageOf, visiblePostIds } from '../support/billing.ts';
import { charged } from '../support/assertions.ts';
import { startTestService, type TestService } from '../support/service.ts';

/** Billing through the real HTTP surfaces: the spec's worked examples, exactness under concurrency, admission. */
let svc: TestService;

beforeAll(async () => {
  // A ceiling the tests cannot reach, so only the credit rules decide (the rate limit has its own suite).
  svc = await startTestService({ tiers: { free: { rateLimitPerMinute: 1_000_000 }, t1: { rateLimitPerMinute: 1_000_000 }, t2: { rateLimitPerMinute: 1_000_000 }, t3: { rateLimitPerMinute: 1_000_000 } } });
});
afterAll(async () => {
  await svc?.close();
});

const POST_PRICE = 4; // 1 per call + 3 per forum post

describe("the spec's worked examples", () => {
  it('100 forum posts cost 301 credits', async () => {
    const { key } = await fundedWorkspace(svc, 1_000);
    const posts = visiblePostIds(svc, 100);
    const res = await svc.request('POST', '/v1/forum/lookup', { key, body: { posts } });
    expect(res.status, JSON.stringify(res.body.error)).toBe(200);
    expect(res.body.data.posts).toHaveLength(100);
    expect(charged(res)).toBe(301);
    expect(Number(res.headers.get('x-credits-remaining'))).toBe(699);
    expect((await usageOf(svc, key)).balance).toBe(699);
  });

  it('an empty search costs 1 credit', async () => {
    const { key } = await fundedWorkspace(svc, 10);
    const res = await svc.request('POST', '/v1/forum/search', { key, body: { query: 'qzxjvkwpyyy nothing matches this' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
    expect(charged(res)).toBe(1);
    expect((await usageOf(svc, key)).balance).toBe(9);
  });

  it('a refused or failed call costs 0', async () => {
    const { key } = await fundedWorkspace(svc, 10);
    const missing = await svc.request('GET', '/v1/forum/posts/zzzzzzzzz', { key });
    expect(missing.status).toBe(404);
    expect(charged(missing)).toBe(0);
    const invalid = await svc.request('GET', '/v1/forum/posts/not_valid!', { key });
    expect(invalid.status).toBe(400);
    expect((await usageOf(svc, key)).balance).toBe(10);
  });

  it('ids in meta.missing are not billed', async () => {
    const { key } = await fundedWorkspace(svc, 100);
    const [id] = visiblePostIds(svc, 1);
    const res = await svc.request('POST', '/v1/forum/lookup', { key, body: { posts: [id, 'zzzzzzzz1', 'zzzzzzzz2'] } });
    expect(res.status).toBe(200);
    expect(res.body.meta.missing).toEqual(['t3_zzzzzzzz1', 't3_zzzzzzzz2']);
    expect(charged(res)).toBe(POST_PRICE);
  });

  it('GraphQL and MCP bill exactly as REST, and report it', async () => {
    const { key } = await fundedWorkspace(svc, 100);
    const [id] = visiblePostIds(svc, 1);
    const gql = await svc.graphql('query($id: String!) { forumPost(id: $id) { id title } }', { id }, key);
    expect(gql.body.data.forumPost.id).toBe(id);
    expect(charged(gql)).toBe(POST_PRICE);
    expect(gql.body.extensions.credits).toEqual({ charged: POST_PRICE, remaining: 100 - POST_PRICE, worstCase: POST_PRICE });
    const client = await connectMcp(svc.url, key);
    try {
      const result = await client.callTool({ name: 'get_forum_post', arguments: { id } });
      expect(result.isError).toBeFalsy();
      expect(result._meta?.credits).toEqual({ charged: POST_PRICE, remaining: 100 - 2 * POST_PRICE, worstCase: POST_PRICE });
    } finally {
      await client.close();
    }
    expect((await usageOf(svc, key)).balance).toBe(100 - 2 * POST_PRICE);
  });

  it('a GraphQL request with a failing root field is charged only for the fields that succeeded', async () => {
    const { key } = await fundedWorkspace(svc, 100);
    const [id] = visiblePostIds(svc, 1);
    const res = await svc.graphql('query($id: String!) { ok: forumPost(id: $id) { id } gone: forumPost(id: "zzzzzzzz9") { id } }', { id }, key);
    expect(res.body.data?.ok?.id).toBe(id);
    expect(res.body.errors[0].extensions.code).toBe('not_found');
    expect(charged(res)).toBe(POST_PRICE);
    expect((await usageOf(svc, key)).balance).toBe(100 - POST_PRICE);
  });
});

describe('partial GraphQL results', () => {
  it('a root field served with an error below it is charged for what it returned', async () => {
    const { key } = await fundedWorkspace(svc, 100);
    const res = await svc.graphql('{ microblogUser(user: "simdevs") { username followers(cursor: "not-a-cursor") { nextCursor } } }', undefined, key);
    expect(res.body.data.microblogUser.username).toBe('simdevs');
    expect(res.body.errors[0]).toMatchObject({ path: ['microblogUser', 'followers'], extensions: { code: 'invalid_cursor' } });
    expect(charged(res)).toBe(1 + 2);
    expect((await usageOf(svc, key)).balance).toBe(97);
  });

  it('over REST the same kind of failure withholds the data and costs nothing', async () => {
    const { key } = await fundedWorkspace(svc, 100);
    const res = await svc.request('GET', '/v1/microblog/users/simdevs/followers?cursor=not-a-cursor', { key });
    expect(res.status).toBe(400);
    expect(charged(res)).toBe(0);
    expect((await usageOf(svc, key)).balance).toBe(100);
  });
});

describe('holds sized to the request', () => {
  it('concurrent cheap calls on a small balance are all served, none refused as credits_held', async () => {
    const { key } = await fundedWorkspace(svc, 100);
    const [id] = visiblePostIds(svc, 1);
    const responses = await Promise.all(Array.from({ length: 20 }, () => svc.request('POST', '/v1/forum/lookup', { key, body: { posts: [id] } })));
    expect(responses.map((res) => res.status)).toEqual(Array(20).fill(200));
    expect(responses.map(charged)).toEqual(Array(20).fill(POST_PRICE));
    expect(await usageOf(svc, key)).toMatchObject({ balance: 100 - 20 * POST_PRICE, reserved: 0 });
  });
});

describe('admission', () => {
  it('402 insufficient_credits when the balance is below the minimum charge, free calls still work', async () => {
    const { key } = await fundedWorkspace(svc, 0);
    const [id] = visiblePostIds(svc, 1);
    const res = await svc.request('GET', `/v1/forum/posts/${id}`, { key });
    expect(res.status).toBe(402);
    expect(res.body.error).toMatchObject({ code: 'insufficient_credits', retryable: false });
    expect(charged(res)).toBe(0);
    expect((await svc.request('GET', '/v1/whoami', { key })).status).toBe(200);
  });

  it('402 spending_paused for billed calls while paused; free calls keep working; resume restores', async () => {
    const { key, workspaceId } = await fundedWorkspace(svc, 50);
    const [id] = visiblePostIds(svc, 1);
    expect((await svc.operator('POST', `/operator/workspaces/${workspaceId}/pause`)).status).toBe(200);
    const paused = await svc.request('GET', `/v1/forum/posts/${id}`, { key });
    expect(paused.status).toBe(402);
    expect(paused.body.error.code).toBe('spending_paused');
    expect((await usageOf(svc, key)).spendingPaused).toBe(true);
    expect((await svc.request('GET', '/v1/limits', { key })).status).toBe(200);
    expect((await svc.operator('POST', `/operator/workspaces/${workspaceId}/resume`)).status).toBe(200);
    const resumed = await svc.request('GET', `/v1/forum/posts/${id}`, { key });
    expect(resumed.status).toBe(200);
    expect(charged(resumed)).toBe(POST_PRICE);
  });

  it('a GraphQL document is admitted as one call: with a billed field it is refused whole while paused; free fields alone still answer', async () => {
    const { key, workspaceId } = await fundedWorkspace(svc, 50);
    const [id] = visiblePostIds(svc, 1);
    expect((await svc.operator('POST', `/operator/workspaces/${workspaceId}/pause`)).status).toBe(200);
    const mixed = await svc.graphql('query($id: String!) { whoami { keyId } forumPost(id: $id) { id } }', { id }, key);
    expect(mixed.status).toBe(402);
    expect(mixed.body.data ?? null).toBeNull();
    expect(mixed.body.errors[0].extensions.code).toBe('spending_paused');
    expect(charged(mixed)).toBe(0);
    const free = await svc.graphql('{ whoami { keyId } }', {}, key);
    expect(free.status).toBe(200);
    expect(free.body.data.whoami.keyId).toEqual(expect.any(String));
    expect((await svc.operator('POST', `/operator/workspaces/${workspaceId}/resume`)).status).toBe(200);
  });
});

describe('exactness under concurrency', () => {
  async function hammer(target: TestService[], key: string, calls: number) {
    const ids = visiblePostIds(svc, 20);
    return Promise.all(
      Array.from({ length: calls }, (_, i) => {
        const instance = target[i % target.length];
        const id = ids[i % ids.length];
        return i % 2 === 0
          ? instance.request('GET', `/v1/forum/posts/${id}`, { key })
          : instance.graphql('query($id: String!) { forumPost(id: $id) { id } }', { id }, key);
      }),
    );
  }

  async function assertExact(key: string, workspaceId: string, before: number, responses: Awaited<ReturnType<typeof hammer>>) {
    let served = 0;
    for (const res of responses) {
      const isServed = res.status === 200 && !res.body.errors;
      if (isServed) {
        served += 1;
        expect(charged(res)).toBe(POST_PRICE);
      } else {
        expect([402, 429]).toContain(res.status);
        expect(charged(res)).toBe(0);
      }
    }
    const total = responses.reduce((sum, res) => sum + charged(res), 0);
    const after = await usageOf(svc, key);
    expect(after.balance).toBeGreaterThanOrEqual(0);
    expect(after.reserved).toBe(0);
    expect(total).toBe(before - after.balance);
    expect(total).toBe(served * POST_PRICE);
    const ledger = await svc.operator('GET', `/operator/workspaces/${workspaceId}/ledger`);
    const charges = (ledger.body.data as Array<{ kind: string; credits: number }>).filter((row) => row.kind === 'charge');
    expect(charges.reduce((sum, row) => sum + Math.abs(row.credits), 0)).toBe(total);
    return { served, total };
  }

  it('200 concurrent REST and GraphQL calls on a balance that covers only part of them', async () => {
    const { key, workspaceId } = await fundedWorkspace(svc, 402);
    const responses = await hammer([svc], key, 200);
    const { served } = await assertExact(key, workspaceId, 402, responses);
    expect(served).toBe(100);
    expect((await usageOf(svc, key)).balance).toBe(2);
  }, 120_000);

  it.runIf(process.env.TEST_DATABASE_URL)('the same across two service instances on one database', async () => {
    const second = await startTestService({ shareDatabaseWith: svc });
    try {
      const { key, workspaceId } = await fundedWorkspace(svc, 302);
      const responses = await hammer([svc, second], key, 200);
      const { served } = await assertExact(key, workspaceId, 302, responses);
      expect(served).toBe(75);
    } finally {
      await second.close();
    }
  }, 120_000);
});
