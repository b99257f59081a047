import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ArticleShape, EditHistoryShape, MicroblogPostShape } from '../../adapters/shapes/microblog-shapes.ts';
import { SIM_ACCOUNTS, SIM_POSTS, SIM_USER_IDS } from '../../adapters/sim/microblog/microblog-world-generator.ts';
import { withFragments } from '../../schema/zod-graphql.ts';
import { getMicroblogPost } from '../../schema/catalogue/microblog-posts.ts';
import { connectMcp } from '../support/mcp.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { microblogOf } from './microblog-e2e-support.ts';
import { charged, expectError, toolEnvelope } from '../support/assertions.ts';

let svc: TestService;
let key: string;

beforeAll(async () => {
  svc = await startTestService();
});
beforeEach(async () => {
  ({ key } = await svc.newKey({ scopes: ['read:microblog'] }));
});
afterEach(() => microblogOf(svc).sim.faults.clear());
afterAll(async () => {
  await svc?.close();
});

const world = () => microblogOf(svc).sim.world;
const get = (path: string) => svc.request('GET', path, { key });
const ids = (res: { body: { data: Array<{ id: string }> } }) => res.body.data.map((p) => p.id);

describe('GET /v1/microblog/posts?ids=', () => {
  it('request order, duplicates ignored, notFound (deleted, protected, unknown) not billed', async () => {
    const asked = [SIM_POSTS.quote, SIM_POSTS.threadHead, SIM_POSTS.quote, SIM_POSTS.deleted, SIM_POSTS.protectedPost, '123'];
    const res = await get(`/v1/microblog/posts?ids=${asked.join(',')}`);
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual([SIM_POSTS.quote, SIM_POSTS.threadHead]);
    expect(res.body.meta.notFound).toEqual([SIM_POSTS.deleted, SIM_POSTS.protectedPost, '123']);
    expect(charged(res)).toBe(1 + 2);
    for (const p of res.body.data) MicroblogPostShape.parse(p);
  });

  it('100 ids in one upstream round trip', async () => {
    const hundred = world().timeline.slice(0, 100).map((p) => p.id);
    const { client } = microblogOf(svc);
    const before = client.stats.requests;
    const res = await get(`/v1/microblog/posts?ids=${hundred.join(',')}`);
    expect(client.stats.requests - before).toBe(1);
    expect(res.body.data.length + res.body.meta.notFound.length).toBe(100);
    expect(charged(res)).toBe(1 + res.body.data.length);
  });

  it('ids beyond 2^53 stay exact strings; 400 for ids out of pattern', async () => {
    const res = await get(`/v1/microblog/posts?ids=${SIM_POSTS.threadHead}`);
    expect(res.body.data[0].id).toBe(SIM_POSTS.threadHead);
    expect(BigInt(SIM_POSTS.threadHead) > BigInt(Number.MAX_SAFE_INTEGER)).toBe(true);
    expectError(await get('/v1/microblog/posts?ids=1,,2'), 400, 'invalid_request', { field: 'ids' });
  });
});

describe('GET /v1/microblog/posts/{id}', () => {
  it('one post, billed 1 + 1; quotedPost one level deep', async () => {
    const res = await get(`/v1/microblog/posts/${SIM_POSTS.quote}`);
    expect(res.status).toBe(200);
    expect(res.body.data.quotedPost).toMatchObject({ id: SIM_POSTS.quoted, text: 'Original take 🔥' });
    expect(res.body.data.quotedPost).not.toHaveProperty('quotedPost');
    expect(charged(res)).toBe(2);
  });

  it('a repost: its own text is the short RT form, the original text and counts are in repostedPost', async () => {
    const res = await get(`/v1/microblog/posts/${SIM_POSTS.quoteRepost}`);
    expect(res.body.data.text).toBe(`RT @${SIM_ACCOUNTS.blue}: Quoting this`);
    expect(res.body.data.likeCount).toBe(0);
    expect(res.body.data.repostedPost).toMatchObject({ id: SIM_POSTS.quote, text: 'Quoting this' });
  });

  it('long posts in full, media of each kind', async () => {
    const long = await get(`/v1/microblog/posts/${SIM_POSTS.long}`);
    expect(Array.from(long.body.data.text as string).length).toBeGreaterThan(280);
    expect(long.body.data.text).toContain('Release notes & highlights');
    const video = await get(`/v1/microblog/posts/${SIM_POSTS.video}`);
    expect(video.body.data.media[0]).toMatchObject({ type: 'video' });
    expect(video.body.data.media[0].url).toMatch(/\/2176000\.mp4$/);
    const stream = await get(`/v1/microblog/posts/${SIM_POSTS.streamOnly}`);
    expect(stream.body.data.media[0]).toMatchObject({ type: 'video', url: null });
    const gif = await get(`/v1/microblog/posts/${SIM_POSTS.gif}`);
    expect(gif.body.data.media[0]).toMatchObject({ type: 'animated_gif', previewImageUrl: null });
  });

  it('404 for deleted, unknown and protected-author posts; 400 out of pattern', async () => {
    expectError(await get(`/v1/microblog/posts/${SIM_POSTS.deleted}`), 404, 'not_found');
    expectError(await get('/v1/microblog/posts/1'), 404, 'not_found');
    expectError(await get(`/v1/microblog/posts/${SIM_POSTS.protectedPost}`), 404, 'not_found', { reason: 'protected' });
    expectError(await get(`/v1/microblog/posts/${'1'.repeat(20)}`), 400, 'invalid_request', { field: 'id' });
    expectError(await get('/v1/microblog/posts/12ab'), 400, 'invalid_request', { field: 'id' });
  });

  it('the same post on REST, GraphQL and MCP', async () => {
    const rest = await get(`/v1/microblog/posts/${SIM_POSTS.long}`);
    const gql = await svc.graphql(withFragments(getMicroblogPost.graphql.document), { id: SIM_POSTS.long }, key);
    expect(gql.body.data.microblogPost).toEqual(rest.body.data);
    const mcp = await connectMcp(svc.url, key);
    try {
      const result = await mcp.callTool({ name: 'get_microblog_post', arguments: { id: SIM_POSTS.long } });
      expect(toolEnvelope(result).data).toEqual(rest.body.data);
    } finally {
      await mcp.close();
    }
  });
});

describe('GET /v1/microblog/posts/{id}/replies', () => {
  it('every reply (and reply to a reply) under the post; not the post, not posts above it, not promoted posts', async () => {
    const all: Array<{ id: string; createdAt: string }> = [];
    let cursor: string | null = null;
    for (let page = 0; page < 10; page++) {
      const res = await get(`/v1/microblog/posts/${SIM_POSTS.threadPart2}/replies${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      expect(charged(res)).toBe(1 + res.body.data.length);
      all.push(...res.body.data);
      cursor = res.body.meta.nextCursor;
      if (!cursor) break;
    }
    const got = all.map((p) => p.id);
    expect(got).not.toContain(SIM_POSTS.threadPart2);
    expect(got).not.toContain(SIM_POSTS.threadHead);
    expect(got).toContain(SIM_POSTS.threadPart3);
    const head = await get(`/v1/microblog/posts/${SIM_POSTS.threadHead}/replies?sort=relevance`);
    expect(ids(head)).not.toContain(SIM_POSTS.promotedReply);
    expect(ids(head)).not.toContain(SIM_POSTS.threadHead);
  });

  it('sort: latest is newest first, likes is most liked first', async () => {
    const latest = await get(`/v1/microblog/posts/${SIM_POSTS.threadHead}/replies`);
    const direct = (res: { body: { data: Array<{ inReplyToId: string; createdAt: string; likeCount: number }> } }) =>
      res.body.data.filter((p) => p.inReplyToId === SIM_POSTS.threadHead);
    const times = direct(latest).map((p) => Date.parse(p.createdAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const likes = direct(await get(`/v1/microblog/posts/${SIM_POSTS.threadHead}/replies?sort=likes`)).map((p) => p.likeCount);
    expect(likes).toEqual([...likes].sort((a, b) => b - a));
    expectError(await get(`/v1/microblog/posts/${SIM_POSTS.threadHead}/replies?sort=oldest`), 400, 'invalid_request', { field: 'sort' });
  });

  it('a cursor is bound to the sort it came from', async () => {
    const first = await get(`/v1/microblog/posts/${SIM_POSTS.threadHead}/replies`);
    expect(first.body.meta.nextCursor).not.toBeNull();
    expectError(await get(`/v1/microblog/posts/${SIM_POSTS.threadHead}/replies?sort=likes&cursor=${encodeURIComponent(first.body.meta.nextCursor)}`), 400, 'invalid_cursor');
  });

  it('404 when the post does not exist', async () => {
    expectError(await get('/v1/microblog/posts/1/replies'), 404, 'not_found');
  });
});

describe('GET /v1/microblog/posts/{id}/thread', () => {
  it("the author's thread, first post first, from any post of it; others' replies excluded", async () => {
    const expected = [SIM_POSTS.threadHead, SIM_POSTS.threadPart2, SIM_POSTS.threadPart3, SIM_POSTS.threadPart4];
    for (const id of [SIM_POSTS.threadHead, SIM_POSTS.threadPart3, SIM_POSTS.threadPart4]) {
      const res = await get(`/v1/microblog/posts/${id}/thread`);
      expect(res.status).toBe(200);
      expect(ids(res)).toEqual(expected);
      expect(res.body.data.every((p: { author: { id: string } }) => p.author.id === SIM_USER_IDS.threader)).toBe(true);
      expect(charged(res)).toBe(1 + 4);
    }
  });

  it('a post that starts no thread is a thread of one; 404 when the post does not exist', async () => {
    expect(ids(await get(`/v1/microblog/posts/${SIM_POSTS.quoted}/thread`))).toEqual([SIM_POSTS.quoted]);
    expectError(await get('/v1/microblog/posts/1/thread'), 404, 'not_found');
    expectError(await get(`/v1/microblog/posts/${SIM_POSTS.deleted}/thread`), 404, 'not_found');
  });
});

describe('GET /v1/microblog/posts/{id}/reposters', () => {
  it('accounts that reposted, billed per user; limit bounds', async () => {
    const res = await get(`/v1/microblog/posts/${SIM_POSTS.quote}/reposters`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((p: { username: string }) => p.username)).toEqual([SIM_ACCOUNTS.threader]);
    expect(charged(res)).toBe(2);
    expectError(await get(`/v1/microblog/posts/${SIM_POSTS.quote}/reposters?limit=0`), 400, 'invalid_request', { field: 'limit' });
    expectError(await get(`/v1/microblog/posts/${SIM_POSTS.quote}/reposters?limit=101`), 400, 'invalid_request', { field: 'limit' });
  });
});

describe('GET /v1/microblog/posts/{id}/article', () => {
  it('the full Article with blocks, plain text and Markdown; offsets in UTF-16', async () => {
    const res = await get(`/v1/microblog/posts/${SIM_POSTS.article}/article`);
    expect(res.status).toBe(200);
    const article = ArticleShape.parse(res.body.data);
    expect(article.postId).toBe(SIM_POSTS.article);
    expect(article.id).not.toBe(SIM_POSTS.article);
    expect(article.markdown).toContain('# Building on the Sim API');
    expect(article.markdown).toContain('🚀 **Bold start**, *italic middle* and ~~struck end~~.');
    expect(article.markdown).toContain('1. Create a key\n   1. Scopes: read only\n2. Call the API');
    expect(article.markdown).toContain('> Ship small, ship often.');
    expect(article.markdown).toContain('```\nconst client = createClient();\nawait client.search("cats");\n```');
    expect(article.markdown).toContain(`https://x.com/i/status/${SIM_POSTS.quoted}`);
    expect(article.text).toContain('Bold start, italic middle');
    const styled = article.blocks!.find((b) => b.text.startsWith('🚀'))!;
    expect(styled.styles[0]).toEqual({ offset: 3, length: 10, style: 'Bold' });
    expect(styled.text.slice(3, 13)).toBe('Bold start');
    expect(charged(res)).toBe(2);
  });

  it('in lists of posts only the preview travels (text, markdown, blocks null)', async () => {
    const res = await get(`/v1/microblog/posts/${SIM_POSTS.article}`);
    expect(res.body.data.article).toMatchObject({ text: null, markdown: null, blocks: null, media: [] });
    expect(res.body.data.article.title).toBe('Building on the Sim API 🚀');
  });

  it('404 when the post carries no Article or does not exist', async () => {
    expectError(await get(`/v1/microblog/posts/${SIM_POSTS.quoted}/article`), 404, 'not_found', { reason: 'no_article' });
    expectError(await get('/v1/microblog/posts/1/article'), 404, 'not_found');
  });
});

describe('quotes and edit history', () => {
  it('GET /v1/microblog/posts/{id}/quotes: posts quoting the post', async () => {
    const res = await get(`/v1/microblog/posts/${SIM_POSTS.quoted}/quotes`);
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual([SIM_POSTS.quote]);
    expect(charged(res)).toBe(2);
  });

  it('GET /v1/microblog/posts/{id}/edits: every version oldest first, from any version', async () => {
    for (const id of [SIM_POSTS.editedInitial, SIM_POSTS.editedLatest]) {
      const res = await get(`/v1/microblog/posts/${id}/edits`);
      expect(res.status).toBe(200);
      const history = EditHistoryShape.parse(res.body.data);
      expect(history).toMatchObject({ postId: id, initialPostId: SIM_POSTS.editedInitial, latestPostId: SIM_POSTS.editedLatest });
      expect(history.editPostIds).toEqual([SIM_POSTS.editedInitial, SIM_POSTS.editedLatest]);
      expect(history.versions.map((v) => v.text)).toEqual([
        'Launch day for our new API #Launch',
        'Launch day for our new API (edited: now with docs) #Launch https://example.com/docs',
      ]);
      expect(charged(res)).toBe(1 + 2);
    }
    expectError(await get('/v1/microblog/posts/1/edits'), 404, 'not_found');
  });
});

describe('identical platform reads within one request run once', () => {
  /** Upstream round trips a call makes. */
  async function roundTrips<T>(call: () => Promise<T>): Promise<{ result: T; trips: number }> {
    const { client } = microblogOf(svc);
    const before = client.stats.requests;
    const result = await call();
    return { result, trips: client.stats.requests - before };
  }

  it("edit history reuses the post's own read: one round trip for a post never edited, one more for the other versions", async () => {
    const plain = await roundTrips(() => get(`/v1/microblog/posts/${SIM_POSTS.quoted}/edits`));
    expect(plain.result.body.data.editPostIds).toEqual([SIM_POSTS.quoted]);
    expect(plain.trips).toBe(1);
    const edited = await roundTrips(() => get(`/v1/microblog/posts/${SIM_POSTS.editedLatest}/edits`));
    expect(edited.result.body.data.versions).toHaveLength(2);
    expect(edited.trips).toBe(2);
    const gql = await roundTrips(() => svc.graphql(`query($id: String!) { microblogPost(id: $id) { id editHistory { editPostIds } } }`, { id: SIM_POSTS.quoted }, key));
    expect(gql.result.body.errors).toBeUndefined();
    expect(gql.result.body.data.microblogPost.editHistory.editPostIds).toEqual([SIM_POSTS.quoted]);
    expect(gql.trips).toBe(1);
  });

  it('a thread and its replies in the same ranking read the conversation page once, root fields or edges', async () => {
    const roots = await roundTrips(() =>
      svc.graphql(
        `query($id: String!) { microblogPostThread(id: $id) { id } microblogPostReplies(id: $id, sort: "relevance") { items { id } } }`,
        { id: SIM_POSTS.threadHead },
        key,
      ),
    );
    expect(roots.result.body.errors).toBeUndefined();
    expect(roots.result.body.data.microblogPostThread.map((p: { id: string }) => p.id)[0]).toBe(SIM_POSTS.threadHead);
    expect(roots.result.body.data.microblogPostReplies.items.length).toBeGreaterThan(0);
    expect(roots.trips).toBe(1);
    const edges = await roundTrips(() =>
      svc.graphql(`query($id: String!) { microblogPost(id: $id) { thread { id } replies(sort: "relevance") { items { id } } } }`, { id: SIM_POSTS.threadHead }, key),
    );
    expect(edges.result.body.errors).toBeUndefined();
    // The post itself, then one conversation page for both edges.
    expect(edges.trips).toBe(2);
  });
});

describe('GraphQL walks', () => {
  it('post → author profile → followers; authors batched in one round trip, quotedPost without one', async () => {
    const { client } = microblogOf(svc);
    const before = client.stats.requests;
    const res = await svc.graphql(
      `query($ids: String!) { microblogPosts(ids: $ids) { items { id quotedPost { id author { username } authorProfile { username } } authorProfile { username followersCount followers { items { id } nextCursor } } } notFound } }`,
      { ids: [SIM_POSTS.quote, SIM_POSTS.threadHead, SIM_POSTS.long].join(',') },
      key,
    );
    expect(res.body.errors).toBeUndefined();
    const items = res.body.data.microblogPosts.items;
    expect(items.map((p: { authorProfile: { username: string } }) => p.authorProfile.username)).toEqual([SIM_ACCOUNTS.blue, SIM_ACCOUNTS.threader, SIM_ACCOUNTS.org]);
    expect(items[0].quotedPost).toMatchObject({ id: SIM_POSTS.quoted, author: { username: SIM_ACCOUNTS.plain }, authorProfile: { username: SIM_ACCOUNTS.plain } });
    expect(items[2].authorProfile.followers.items).toHaveLength(70);
    // 1 bulk posts call + 1 bulk users call (4 authors) + 3 follower pages.
    expect(client.stats.requests - before).toBe(5);
    // Billed in full even past the root operation's largest result: 1 + 3 posts + 4 profiles × 2 + 1 per follower.
    const followers = items.reduce((sum: number, p: { authorProfile: { followers: { items: unknown[] } } }) => sum + p.authorProfile.followers.items.length, 0);
    expect(followers).toBeGreaterThan(100);
    expect(Number(res.headers.get('x-credits-charged'))).toBe(1 + 3 + 4 * 2 + followers);
  });

  it('walked profiles are billed as profiles', async () => {
    const res = await svc.graphql(
      `query($ids: String!) { microblogPosts(ids: $ids) { items { id quotedPost { authorProfile { username } } authorProfile { username } } } }`,
      { ids: [SIM_POSTS.quote, SIM_POSTS.threadHead, SIM_POSTS.long].join(',') },
      key,
    );
    expect(res.body.errors).toBeUndefined();
    // 1 + 3 posts + 4 profiles (three authors and the quoted post's author).
    expect(Number(res.headers.get('x-credits-charged'))).toBe(1 + 3 + 4 * 2);
  });
});

describe('upstream failures', () => {
  it('connection resets and timeouts become 503, charged nothing', async () => {
    microblogOf(svc).sim.faults.add({ route: '/i/api/graphql/', kind: 'reset', count: 10 });
    expectError(await get(`/v1/microblog/posts/${SIM_POSTS.quote}`), 503, 'upstream_unavailable');
  });
});
