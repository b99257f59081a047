import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AboutDetailsShape, MicroblogPostShape, MicroblogProfileShape } from '../../adapters/shapes/microblog-shapes.ts';
import { SIM_ACCOUNTS, SIM_USER_IDS } from '../../adapters/sim/microblog/microblog-world-generator.ts';
import { connectMcp } from '../support/mcp.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { microblogOf } from './microblog-e2e-support.ts';
import { charged, expectError, toolEnvelope } from '../support/assertions.ts';

let svc: TestService;
let key: string;

beforeAll(async () => {
  svc = await startTestService();
});
// A workspace per test: the free tier's per-minute rate limit would otherwise run out mid-file.
beforeEach(async () => {
  ({ key } = await svc.newKey({ scopes: ['read:microblog'] }));
});
afterEach(() => microblogOf(svc).sim.faults.clear());
afterAll(async () => {
  await svc?.close();
});

const world = () => microblogOf(svc).sim.world;
const get = (path: string) => svc.request('GET', path, { key });

describe('GET /v1/microblog/users/{user}/followers', () => {
  it('pages ~70 followers at a time; the first page bills the profile lookup, later pages do not', async () => {
    const first = await get(`/v1/microblog/users/${SIM_ACCOUNTS.org}/followers`);
    expect(first.status).toBe(200);
    expect(first.body.data).toHaveLength(70);
    for (const p of first.body.data) MicroblogProfileShape.parse(p);
    expect(charged(first)).toBe(1 + 2 + 70);
    const seen: string[] = first.body.data.map((p: { id: string }) => p.id);
    let cursor: string | null = first.body.meta.nextCursor;
    let pages = 1;
    while (cursor && pages < 10) {
      const next = await get(`/v1/microblog/users/${SIM_ACCOUNTS.org}/followers?cursor=${encodeURIComponent(cursor)}`);
      expect(next.status).toBe(200);
      expect(charged(next)).toBe(1 + next.body.data.length);
      seen.push(...next.body.data.map((p: { id: string }) => p.id));
      cursor = next.body.meta.nextCursor;
      pages++;
    }
    expect(cursor).toBeNull();
    const expected = world().followers.get(SIM_USER_IDS.org)!.filter((id) => !world().users.get(id)!.suspended);
    expect(seen).toEqual(expected);
  });

  it('ends on the page that reaches followersCount, a suspended follower (listed, left out) counted: no billed empty page', async () => {
    const followers = world().followers.get(SIM_USER_IDS.org)!;
    expect(followers.some((id) => world().users.get(id)!.suspended)).toBe(true);
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: any } = await get(`/v1/microblog/users/${SIM_ACCOUNTS.org}/followers${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`);
      sizes.push(page.body.data.length);
      cursor = page.body.meta.nextCursor;
      expect(page.body.meta).not.toHaveProperty('truncated');
    } while (cursor && sizes.length < 10);
    expect(sizes.every((size) => size > 0)).toBe(true);
    expect(sizes).toHaveLength(Math.ceil(followers.length / 70));
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(followers.filter((id) => !world().users.get(id)!.suspended).length);
  });

  it('a count that lags the list (followers listed past it): the walk follows the platform to its end, none lost', async () => {
    const followers = world().followers.get(SIM_USER_IDS.org)!;
    const counted = followers.length;
    const path = `/v1/microblog/users/${SIM_ACCOUNTS.org}/followers`;
    const first = await get(path);
    try {
      // The profile counted `counted` on the first page; 70 more are listed behind them, past that count.
      const extra = [...world().users.values()].filter((u) => !u.suspended && u.id !== SIM_USER_IDS.org).slice(0, 70);
      expect(extra).toHaveLength(70);
      followers.push(...extra.map((u) => u.id));
      const seen: string[] = first.body.data.map((p: { id: string }) => p.id);
      let cursor: string | null = first.body.meta.nextCursor;
      for (let page = 0; cursor && page < 10; page++) {
        const next: { body: any } = await get(`${path}?cursor=${encodeURIComponent(cursor)}`);
        expect(next.body.meta).not.toHaveProperty('truncated');
        seen.push(...next.body.data.map((p: { id: string }) => p.id));
        cursor = next.body.meta.nextCursor;
      }
      expect(cursor).toBeNull();
      expect(seen).toEqual(followers.filter((id) => !world().users.get(id)!.suspended));
    } finally {
      followers.splice(counted);
    }
  });

  it('accepts @username and a numeric id alike', async () => {
    const byAt = await get(`/v1/microblog/users/@${SIM_ACCOUNTS.org}/followers`);
    const byId = await get(`/v1/microblog/users/${SIM_USER_IDS.org}/followers`);
    expect(byAt.body.data.map((p: { id: string }) => p.id)).toEqual(byId.body.data.map((p: { id: string }) => p.id));
  });

  it('a cursor is bound to its request: another account, a tampered or an over-long cursor is 400', async () => {
    const first = await get(`/v1/microblog/users/${SIM_ACCOUNTS.org}/followers`);
    const cursor = first.body.meta.nextCursor as string;
    expectError(await get(`/v1/microblog/users/${SIM_ACCOUNTS.blue}/followers?cursor=${encodeURIComponent(cursor)}`), 400, 'invalid_cursor');
    const tampered = `${cursor.slice(0, -2)}${cursor.endsWith('AA') ? 'BB' : 'AA'}`;
    expectError(await get(`/v1/microblog/users/${SIM_ACCOUNTS.org}/followers?cursor=${encodeURIComponent(tampered)}`), 400, 'invalid_cursor');
    expectError(await get(`/v1/microblog/users/${SIM_ACCOUNTS.org}/followers?cursor=${'a'.repeat(4097)}`), 400, 'invalid_request', { field: 'cursor' });
  });

  it('404 for a protected, a suspended or an unknown account, charged nothing', async () => {
    expectError(await get(`/v1/microblog/users/${SIM_ACCOUNTS.protected}/followers`), 404, 'not_found', { reason: 'protected' });
    expectError(await get(`/v1/microblog/users/${SIM_ACCOUNTS.suspended}/followers`), 404, 'not_found', { reason: 'suspended' });
    expectError(await get('/v1/microblog/users/nobody_at_all/followers'), 404, 'not_found');
  });

  it('400 for a {user} outside the pattern and for a limit (the platform chooses the page size)', async () => {
    expectError(await get(`/v1/microblog/users/${'a'.repeat(51)}/followers`), 400, 'invalid_request', { field: 'user' });
    expectError(await get('/v1/microblog/users/a-b/followers'), 400, 'invalid_request', { field: 'user' });
    expectError(await get(`/v1/microblog/users/${SIM_ACCOUNTS.org}/followers?limit=5`), 400, 'invalid_request', { field: 'limit' });
  });

  it('401 without a key, 403 with a forum-only key', async () => {
    expectError(await svc.request('GET', `/v1/microblog/users/${SIM_ACCOUNTS.org}/followers`), 401, 'unauthenticated');
    const { key: forumOnly } = await svc.newKey({ scopes: ['read:forum'] });
    expectError(await svc.request('GET', `/v1/microblog/users/${SIM_ACCOUNTS.org}/followers`, { key: forumOnly }), 403, 'insufficient_scope');
  });

  it('503 retryable when the platform fails, charged nothing', async () => {
    microblogOf(svc).sim.faults.add({ route: '/i/api/graphql/', kind: 'status', status: 503, count: 10 });
    const res = await get(`/v1/microblog/users/${SIM_ACCOUNTS.org}/followers`);
    expectError(res, 503, 'upstream_unavailable');
    expect(res.body.error.retryable).toBe(true);
  });
});

describe('GET /v1/microblog/users/{user}/following', () => {
  it('pages the accounts followed, billed like followers', async () => {
    const res = await get(`/v1/microblog/users/${SIM_ACCOUNTS.blue}/following`);
    expect(res.status).toBe(200);
    const expected = world().following.get(SIM_USER_IDS.blue)!.filter((id) => !world().users.get(id)!.suspended).slice(0, 70);
    expect(res.body.data.map((p: { id: string }) => p.id)).toEqual(expected);
    expect(charged(res)).toBe(1 + 2 + expected.length);
  });
});

describe('GET /v1/microblog/users/{user}/about', () => {
  it('a username is billed as one profile, a numeric id as two', async () => {
    const byName = await get(`/v1/microblog/users/${SIM_ACCOUNTS.org}/about`);
    expect(byName.status).toBe(200);
    expect(AboutDetailsShape.parse(byName.body.data)).toMatchObject({ id: SIM_USER_IDS.org, username: SIM_ACCOUNTS.org, profileImageShape: 'Square', verified: true, protected: false });
    expect(charged(byName)).toBe(1 + 2);
    const byId = await get(`/v1/microblog/users/${SIM_USER_IDS.org}/about`);
    expect(byId.body.data).toEqual(byName.body.data);
    expect(charged(byId)).toBe(1 + 2 + 2);
  });

  it('404 for protected and unknown accounts', async () => {
    expectError(await get(`/v1/microblog/users/${SIM_ACCOUNTS.protected}/about`), 404, 'not_found', { reason: 'protected' });
    expectError(await get(`/v1/microblog/users/${SIM_USER_IDS.protected}/about`), 404, 'not_found', { reason: 'protected' });
    expectError(await get('/v1/microblog/users/9999999999999/about'), 404, 'not_found');
  });
});

describe('GET /v1/microblog/users?ids=', () => {
  it('returns profiles in request order, duplicates ignored; notFound not billed', async () => {
    const ids = [SIM_USER_IDS.blue, SIM_USER_IDS.org, SIM_USER_IDS.blue, SIM_USER_IDS.suspended, SIM_USER_IDS.protected, '42'];
    const res = await get(`/v1/microblog/users?ids=${ids.join(',')}`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((p: { username: string }) => p.username)).toEqual([SIM_ACCOUNTS.blue, SIM_ACCOUNTS.org]);
    expect(res.body.meta.notFound).toEqual([SIM_USER_IDS.suspended, SIM_USER_IDS.protected, '42']);
    expect(charged(res)).toBe(1 + 2 * 2);
  });

  it('100 ids cost one upstream round trip', async () => {
    const known = [...world().users.keys()];
    const ids = [...known, ...Array.from({ length: 100 - known.length }, (_, i) => String(7_000_000 + i))];
    const { client } = microblogOf(svc);
    const before = client.stats.requests;
    const res = await get(`/v1/microblog/users?ids=${ids.join(',')}`);
    expect(res.status).toBe(200);
    expect(client.stats.requests - before).toBe(1);
    expect(res.body.data.length + res.body.meta.notFound.length).toBe(100);
  });

  it('meta.notFound is present (empty) when everything was found', async () => {
    const res = await get(`/v1/microblog/users?ids=${SIM_USER_IDS.org}`);
    expect(res.body.meta.notFound).toEqual([]);
  });

  it('400 for more than 100 ids, spaces, or non-numeric ids', async () => {
    const many = Array.from({ length: 101 }, (_, i) => String(i + 1)).join(',');
    expectError(await get(`/v1/microblog/users?ids=${many}`), 400, 'invalid_request', { field: 'ids' });
    expectError(await get('/v1/microblog/users?ids=1,%202'), 400, 'invalid_request', { field: 'ids' });
    expectError(await get('/v1/microblog/users?ids=abc'), 400, 'invalid_request', { field: 'ids' });
    expectError(await get(`/v1/microblog/users?ids=${'1'.repeat(20)}`), 400, 'invalid_request', { field: 'ids' });
    expectError(await get('/v1/microblog/users'), 400, 'invalid_request', { field: 'ids' });
  });
});

describe('POST /v1/microblog/users/search', () => {
  it('finds accounts with the platform people search, billed per user', async () => {
    const res = await svc.request('POST', '/v1/microblog/users/search', { key, body: { query: SIM_ACCOUNTS.blue, limit: 5 } });
    expect(res.status).toBe(200);
    expect(res.body.data[0].username).toBe(SIM_ACCOUNTS.blue);
    expect(res.body.data.length).toBeLessThanOrEqual(5);
    expect(charged(res)).toBe(1 + res.body.data.length);
    expect(res.body.meta).toHaveProperty('nextCursor');
  });

  it('pages with the cursor in the body, bound to the query', async () => {
    const first = await svc.request('POST', '/v1/microblog/users/search', { key, body: { query: 'user', limit: 20 } });
    expect(first.body.data).toHaveLength(20);
    const second = await svc.request('POST', '/v1/microblog/users/search', { key, body: { query: 'user', limit: 20, cursor: first.body.meta.nextCursor } });
    expect(second.status).toBe(200);
    expect(second.body.data[0].id).not.toBe(first.body.data[0].id);
    expectError(await svc.request('POST', '/v1/microblog/users/search', { key, body: { query: 'other', limit: 20, cursor: first.body.meta.nextCursor } }), 400, 'invalid_cursor');
  });

  it('400 for bounds: query 1–100, limit 1–20', async () => {
    for (const body of [{ query: '' }, { query: 'x'.repeat(101) }, { query: 'a', limit: 21 }, { query: 'a', limit: 0 }, {}]) {
      const res = await svc.request('POST', '/v1/microblog/users/search', { key, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
    }
  });
});

describe('GET /v1/microblog/users/{user}/highlights and /affiliates', () => {
  it('highlights: featured posts; the first page bills the profile', async () => {
    const res = await get(`/v1/microblog/users/${SIM_ACCOUNTS.org}/highlights?limit=3`);
    expect(res.status).toBe(200);
    const highlighted = world().users.get(SIM_USER_IDS.org)!.highlightedPostIds;
    expect(res.body.data.map((p: { id: string }) => p.id)).toEqual(
      highlighted.map((id) => world().posts.get(id)!).sort((a, b) => b.createdAt - a.createdAt).slice(0, 3).map((p) => p.id),
    );
    for (const p of res.body.data) MicroblogPostShape.parse(p);
    expect(charged(res)).toBe(1 + 2 + 3);
    const later = await get(`/v1/microblog/users/${SIM_ACCOUNTS.org}/highlights?limit=3&cursor=${encodeURIComponent(res.body.meta.nextCursor)}`);
    expect(charged(later)).toBe(1 + later.body.data.length);
  });

  it('highlights: empty for an account without the paid tier; 400 for limit over 20', async () => {
    const res = await get(`/v1/microblog/users/${SIM_ACCOUNTS.plain}/highlights`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
    expect(charged(res)).toBe(1 + 2);
    expectError(await get(`/v1/microblog/users/${SIM_ACCOUNTS.org}/highlights?limit=21`), 400, 'invalid_request', { field: 'limit' });
  });

  it('affiliates of a verified organisation; empty for other accounts; 400 for limit over 100', async () => {
    const res = await get(`/v1/microblog/users/${SIM_ACCOUNTS.org}/affiliates?limit=100`);
    expect(res.status).toBe(200);
    const expected = [...world().users.values()].filter((u) => u.affiliateOf === SIM_USER_IDS.org && !u.suspended).map((u) => u.id);
    expect(res.body.data.map((p: { id: string }) => p.id).sort()).toEqual(expected.sort());
    expect(charged(res)).toBe(1 + 2 + expected.length);
    expect((await get(`/v1/microblog/users/${SIM_ACCOUNTS.plain}/affiliates`)).body.data).toEqual([]);
    expectError(await get(`/v1/microblog/users/${SIM_ACCOUNTS.org}/affiliates?limit=101`), 400, 'invalid_request', { field: 'limit' });
    expectError(await get(`/v1/microblog/users/${SIM_ACCOUNTS.protected}/affiliates`), 404, 'not_found', { reason: 'protected' });
  });
});

describe('single profile and timelines', () => {
  it('GET /v1/microblog/users/{user}: a protected profile is returned, a suspended one is 404', async () => {
    const res = await get(`/v1/microblog/users/${SIM_ACCOUNTS.protected}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ username: SIM_ACCOUNTS.protected, protected: true });
    expect(charged(res)).toBe(3);
    expectError(await get(`/v1/microblog/users/${SIM_ACCOUNTS.suspended}`), 404, 'not_found', { reason: 'suspended' });
    expectError(await get(`/v1/microblog/users/${SIM_USER_IDS.suspended}`), 404, 'not_found', { reason: 'suspended' });
  });

  it('posts (no replies), posts-and-replies and media, newest first, profile billed once', async () => {
    const posts = await get(`/v1/microblog/users/${SIM_ACCOUNTS.threader}/posts?limit=50`);
    expect(posts.status).toBe(200);
    expect(posts.body.data.length).toBeGreaterThan(0);
    expect(posts.body.data.every((p: { inReplyToId: string | null }) => p.inReplyToId === null)).toBe(true);
    const times = posts.body.data.map((p: { createdAt: string }) => Date.parse(p.createdAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(charged(posts)).toBe(1 + 2 + posts.body.data.length);
    const withReplies = await get(`/v1/microblog/users/${SIM_ACCOUNTS.threader}/posts-and-replies?limit=100`);
    expect(withReplies.body.data.some((p: { inReplyToId: string | null }) => p.inReplyToId !== null)).toBe(true);
    const media = await get(`/v1/microblog/users/${SIM_ACCOUNTS.org}/media`);
    expect(media.body.data.length).toBeGreaterThan(0);
    expect(media.body.data.every((p: { media: unknown[] }) => p.media.length > 0)).toBe(true);
    expectError(await get(`/v1/microblog/users/${SIM_ACCOUNTS.protected}/posts`), 404, 'not_found', { reason: 'protected' });
    expectError(await get(`/v1/microblog/users/${SIM_ACCOUNTS.org}/posts?limit=101`), 400, 'invalid_request', { field: 'limit' });
  });

  it("recorded timelines: posts-and-replies returns the account's own posts only, posts no replies; only those are billed", async () => {
    const recorded = (name: string) => JSON.parse(readFileSync(new URL(`../fixtures/upstream/microblog-x/${name}.json`, import.meta.url), 'utf8'));
    const { faults } = microblogOf(svc).sim;
    faults.add({ route: '/\\/UserByScreenName$/', kind: 'answer', body: recorded('UserByScreenName') });
    faults.add({ route: '/\\/UserTweetsAndReplies$/', kind: 'answer', body: recorded('UserTweetsAndReplies') });
    faults.add({ route: '/\\/UserTweets$/', kind: 'answer', body: recorded('UserTweets') });
    const withReplies = await get('/v1/microblog/users/XDevelopers/posts-and-replies?limit=20');
    expect(withReplies.status).toBe(200);
    // The recording's five profile-conversation modules also show the posts replied to, by five other accounts.
    expect(withReplies.body.data.map((p: { id: string }) => p.id)).toEqual([
      '2083305191776924151',
      '2079821023071907954',
      '2079326854322733289',
      '2077992805851644128',
      '2075724289643290711',
    ]);
    expect(withReplies.body.data.every((p: { author: { username: string } }) => p.author.username === 'XDevelopers')).toBe(true);
    expect(charged(withReplies)).toBe(1 + 2 + 5);
    const posts = await get('/v1/microblog/users/XDevelopers/posts?limit=20');
    expect(posts.status).toBe(200);
    // The Posts tab's thread module continues with a self-reply (2082640276389249363): a reply, so left out.
    expect(posts.body.data.map((p: { id: string }) => p.id)).toEqual([
      '2082640274845811115',
      '2079821023071907954',
      '2079814622639469025',
      '2077992748905590821',
      '2074882755905585583',
      '2072126677535346779',
    ]);
    expect(charged(posts)).toBe(1 + 2 + 6);
  });

  it('a repost in a timeline carries the original in repostedPost; its own text is the short RT form', async () => {
    const res = await get(`/v1/microblog/users/${SIM_ACCOUNTS.blue}/posts?limit=100`);
    const repost = res.body.data.find((p: { repostedPost: unknown }) => p.repostedPost !== null);
    expect(repost.text.startsWith('RT @')).toBe(true);
    const original = await get(`/v1/microblog/posts/${repost.repostedPost.id}`);
    expect(repost.repostedPost.text).toBe(original.body.data.text);
    expect(repost.repostedPost.likeCount).toBe(original.body.data.likeCount);
    expect(repost.text).toBe(`RT @${original.body.data.author.username}: ${original.body.data.text}`.slice(0, repost.text.length).replace(/.$/u, repost.text.slice(-1)));
    expect(repost.repostedPost).not.toHaveProperty('repostedPost');
  });
});

describe('the three surfaces agree', () => {
  it('REST, GraphQL and MCP return the same followers page and bill the same', async () => {
    const rest = await get(`/v1/microblog/users/${SIM_ACCOUNTS.blue}/followers`);
    const gql = await svc.graphql(
      'query($user: String!) { microblogUserFollowers(user: $user) { items { id username followersCount } nextCursor } }',
      { user: SIM_ACCOUNTS.blue },
      key,
    );
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.microblogUserFollowers.items.map((p: { id: string }) => p.id)).toEqual(rest.body.data.map((p: { id: string }) => p.id));
    expect(Number(gql.headers.get('x-credits-charged'))).toBe(charged(rest));
    const mcp = await connectMcp(svc.url, key);
    try {
      const result = await mcp.callTool({ name: 'get_microblog_user_followers', arguments: { user: SIM_ACCOUNTS.blue } });
      expect(result.isError).toBeFalsy();
      expect(toolEnvelope(result).data).toEqual(rest.body.data);
      const protectedResult = await mcp.callTool({ name: 'get_microblog_user_followers', arguments: { user: SIM_ACCOUNTS.protected } });
      expect(protectedResult.isError).toBe(true);
    } finally {
      await mcp.close();
    }
  });
});
