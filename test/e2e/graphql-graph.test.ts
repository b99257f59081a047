import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIM_ACCOUNTS, SIM_LISTS, SIM_POSTS, SIM_SPACES } from '../../adapters/sim/microblog/microblog-world-generator.ts';
import { charged } from '../support/assertions.ts';
import { visiblePostIds } from '../support/billing.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { forumOf } from './forum-e2e-support.ts';
import { microblogOf } from './microblog-e2e-support.ts';

/**
 * Every edge of the graph walked over GraphQL, with the platforms' round trips counted and the charge checked
 * against the price formula of what came back (unit prices: forum post and comment 3, subforum 1, microblog post
 * and account 1, profile 2; 1 per root field).
 */

let svc: TestService;
let key: string;

beforeAll(async () => {
  svc = await startTestService();
  ({ key } = await svc.newKey({ scopes: ['read:social'] }));
});
afterAll(async () => {
  await svc?.close();
});

const microblogRequests = () => microblogOf(svc).client.stats.requests;
const forumRequests = () => forumOf(svc).client.stats.requests;
const count = (list: unknown[] | null | undefined) => list?.length ?? 0;
const present = (values: unknown[]) => values.filter((value) => value !== null && value !== undefined).length;

/** A walk that was served: never charged more than the worst case it was admitted with. */
async function walk(query: string, variables: Record<string, unknown> = {}) {
  const res = await svc.graphql(query, variables, key);
  expect(res.status, JSON.stringify(res.body.errors)).toBe(200);
  expect(charged(res)).toBeLessThanOrEqual(res.body.extensions.credits.worstCase);
  return res;
}

describe('microblog post edges', () => {
  it('a page of 100 posts with their authors and the quoted and reposted authors: one round trip for all the profiles', async () => {
    const ids = microblogOf(svc).sim.world.timeline.slice(0, 100).map((post) => post.id);
    const before = microblogRequests();
    const res = await walk(
      `query($ids: String!) { microblogPosts(ids: $ids) { items { id author { id } authorProfile { id } quotedPost { authorProfile { id } } repostedPost { authorProfile { id } } } notFound } }`,
      { ids: ids.join(',') },
    );
    expect(res.body.errors).toBeUndefined();
    const items = res.body.data.microblogPosts.items;
    expect(items.length).toBeGreaterThan(90);
    expect(items.every((post: { author: { id: string }; authorProfile: { id: string } | null }) => post.authorProfile === null || post.authorProfile.id === post.author.id)).toBe(true);
    // One bulk posts call, then one bulk users call for every account of the page (fewer than 100 distinct).
    expect(microblogRequests() - before).toBe(2);
    const profiles = present(items.flatMap((post: any) => [post.authorProfile, post.quotedPost?.authorProfile, post.repostedPost?.authorProfile]));
    expect(profiles).toBeGreaterThan(items.length);
    expect(charged(res)).toBe(1 + items.length + 2 * profiles);
  });

  it('replies, quotes, thread, reposters, the full Article and the edit history, each billed for what it returned', async () => {
    const before = microblogRequests();
    const res = await walk(
      `query($head: String!, $quoted: String!, $article: String!, $edited: String!) {
        head: microblogPost(id: $head) { id replies { items { id inReplyToId } nextCursor } thread { id } fullArticle { id } }
        quoted: microblogPost(id: $quoted) { quotes(limit: 10) { items { id quotedPost { id } } } reposters(limit: 10) { items { id } } }
        article: microblogPost(id: $article) { article { title text } fullArticle { title text postId } }
        edited: microblogPost(id: $edited) { editHistory { editPostIds versions { id } } }
      }`,
      { head: SIM_POSTS.threadHead, quoted: SIM_POSTS.quoted, article: SIM_POSTS.article, edited: SIM_POSTS.editedLatest },
    );
    expect(res.body.errors).toBeUndefined();
    const { head, quoted, article, edited } = res.body.data;
    expect(head.replies.items.length).toBeGreaterThan(0);
    expect(head.thread.map((post: { id: string }) => post.id)).toContain(SIM_POSTS.threadHead);
    expect(head.fullArticle).toBeNull();
    expect(quoted.quotes.items.map((post: { quotedPost: { id: string } }) => post.quotedPost.id)).toContain(SIM_POSTS.quoted);
    expect(article.article.text).toBeNull();
    expect(article.fullArticle).toMatchObject({ title: article.article.title, postId: SIM_POSTS.article });
    expect(article.fullArticle.text.length).toBeGreaterThan(0);
    expect(edited.editHistory.versions.map((v: { id: string }) => v.id)).toEqual(edited.editHistory.editPostIds);
    const posts = count(head.replies.items) + count(head.thread) + count(quoted.quotes.items) + 1 + count(edited.editHistory.versions);
    expect(charged(res)).toBe(4 * (1 + 1) + posts + count(quoted.reposters.items));
    // The four root posts in one bulk read; one page each for replies, thread, quotes and reposters; one Article;
    // the edit history's other version (the edited post's own read is its root's). The head carries no Article, so
    // asking for it costs no round trip.
    expect(microblogRequests() - before).toBe(1 + 4 + 1 + 1);
  });

  it('the same pages as the root operations, with cursors bound to the edge', async () => {
    const rest = await svc.request('GET', `/v1/microblog/posts/${SIM_POSTS.threadHead}/replies`, { key });
    const res = await walk(`query($id: String!) { microblogPost(id: $id) { replies { items { id } nextCursor } } }`, { id: SIM_POSTS.threadHead });
    expect(res.body.data.microblogPost.replies.items.map((p: { id: string }) => p.id)).toEqual(rest.body.data.map((p: { id: string }) => p.id));
  });
});

describe('microblog profile edges', () => {
  it('timelines, relationship lists and about from the profile itself, as the root operations return them, with no lookup billed', async () => {
    const before = microblogRequests();
    const res = await walk(
      `query($user: String!) { microblogUser(user: $user) { id
        posts(limit: 5) { items { id } nextCursor } postsAndReplies(limit: 5) { items { id } } media(limit: 5) { items { id } }
        highlights(limit: 5) { items { id } } followers { items { id } } following { items { id } } affiliates(limit: 5) { items { id } }
        about { username } } }`,
      { user: SIM_ACCOUNTS.org },
    );
    expect(res.body.errors).toBeUndefined();
    const profile = res.body.data.microblogUser;
    expect(profile.about.username).toBe(SIM_ACCOUNTS.org);
    // The profile, seven pages and the about details: one round trip each.
    expect(microblogRequests() - before).toBe(1 + 7 + 1);
    const pages = ['posts', 'postsAndReplies', 'media', 'highlights', 'followers', 'following', 'affiliates'];
    const units = pages.reduce((sum, name) => sum + count(profile[name].items), 0);
    expect(profile.posts.items).toHaveLength(5);
    expect(profile.affiliates.items.length).toBeGreaterThan(0);
    expect(charged(res)).toBe(1 + 2 + units + 2);

    const rest = await svc.request('GET', `/v1/microblog/users/${SIM_ACCOUNTS.org}/posts?limit=5`, { key });
    expect(profile.posts.items.map((p: { id: string }) => p.id)).toEqual(rest.body.data.map((p: { id: string }) => p.id));
    // The root operation bills its profile lookup; the walk did not.
    expect(charged(rest)).toBe(1 + 2 + rest.body.data.length);
  });

  it("a page's cursor continues the same edge of the same profile, and nothing else", async () => {
    const first = await walk(`query($user: String!) { microblogUser(user: $user) { posts(limit: 5) { items { id } nextCursor } } }`, { user: SIM_ACCOUNTS.org });
    const { items, nextCursor } = first.body.data.microblogUser.posts;
    expect(nextCursor).toEqual(expect.any(String));
    const second = await walk(`query($user: String!, $c: String) { microblogUser(user: $user) { posts(limit: 5, cursor: $c) { items { id } } } }`, { user: SIM_ACCOUNTS.org, c: nextCursor });
    const next = second.body.data.microblogUser.posts.items.map((p: { id: string }) => p.id);
    expect(next).toHaveLength(5);
    expect(next.some((id: string) => items.some((p: { id: string }) => p.id === id))).toBe(false);
    expect(charged(second)).toBe(1 + 2 + 5);

    const elsewhere = await svc.graphql(`query($user: String!, $c: String) { microblogUser(user: $user) { id posts(limit: 5, cursor: $c) { items { id } } } }`, { user: SIM_ACCOUNTS.blue, c: nextCursor }, key);
    expect(elsewhere.body.data.microblogUser.posts).toBeNull();
    expect(elsewhere.body.errors[0]).toMatchObject({ path: ['microblogUser', 'posts'], extensions: { code: 'invalid_cursor' } });
    // The profile was served and is billed; the refused page is not.
    expect(charged(elsewhere)).toBe(1 + 2);
    const root = await svc.request('GET', `/v1/microblog/users/${SIM_ACCOUNTS.org}/posts?limit=5&cursor=${encodeURIComponent(nextCursor)}`, { key });
    expect(root.status).toBe(400);
    expect(root.body.error.code).toBe('invalid_cursor');
  });

  it("a protected account's profile is served while its timeline is null with not_found", async () => {
    const res = await svc.graphql(`query($user: String!) { microblogUser(user: $user) { username protected posts(limit: 5) { items { id } } } }`, { user: SIM_ACCOUNTS.protected }, key);
    expect(res.status).toBe(200);
    expect(res.body.data.microblogUser).toMatchObject({ username: SIM_ACCOUNTS.protected, protected: true, posts: null });
    expect(res.body.errors[0]).toMatchObject({ path: ['microblogUser', 'posts'], extensions: { code: 'not_found', details: { reason: 'protected' } } });
    expect(charged(res)).toBe(1 + 2);
  });
});

describe('an edge that fails', () => {
  it('is null with its error; its parent and the other edges are served and billed, the failed edge costs nothing', async () => {
    const { sim } = microblogOf(svc);
    sim.faults.add({ route: '/\\/UserTweets(\\?|$)/', kind: 'reset', count: 10 });
    try {
      const res = await svc.graphql(`query($user: String!) { microblogUser(user: $user) { username posts(limit: 5) { items { id } } media(limit: 5) { items { id } } } }`, { user: SIM_ACCOUNTS.org }, key);
      expect(res.status).toBe(200);
      const profile = res.body.data.microblogUser;
      expect(profile.username).toBe(SIM_ACCOUNTS.org);
      expect(profile.posts).toBeNull();
      expect(profile.media.items.length).toBeGreaterThan(0);
      expect(res.body.errors).toHaveLength(1);
      expect(res.body.errors[0]).toMatchObject({ path: ['microblogUser', 'posts'], extensions: { code: 'upstream_unavailable', retryable: true } });
      expect(charged(res)).toBe(1 + 2 + profile.media.items.length);
    } finally {
      sim.faults.clear();
    }
  });
});

describe('List and Space edges', () => {
  it("a List's owner, members and posts", async () => {
    const before = microblogRequests();
    const res = await walk(`query($id: String!) { microblogList(id: $id) { ownerId memberCount ownerProfile { id } members(limit: 5) { items { id } } posts(limit: 5) { items { id } } } }`, { id: SIM_LISTS.public });
    expect(res.body.errors).toBeUndefined();
    const list = res.body.data.microblogList;
    expect(list.ownerProfile.id).toBe(list.ownerId);
    expect(list.members.items).toHaveLength(Math.min(5, list.memberCount));
    expect(list.posts.items.length).toBeGreaterThan(0);
    // The List (read once, though the member and post pages read it too), its owner, two pages.
    expect(microblogRequests() - before).toBe(1 + 1 + 2);
    expect(charged(res)).toBe(1 + 2 + 2 + count(list.members.items) + count(list.posts.items));
  });

  it("a Space's host and speaker profiles, in one round trip", async () => {
    const before = microblogRequests();
    const res = await walk(`query($id: String!) { microblogSpace(id: $id) { hosts { id } speakers { id } hostProfiles { id } speakerProfiles { id } } }`, { id: SIM_SPACES.running });
    expect(res.body.errors).toBeUndefined();
    const space = res.body.data.microblogSpace;
    expect(space.hostProfiles.map((p: { id: string }) => p.id)).toEqual(space.hosts.map((p: { id: string }) => p.id));
    expect(space.speakerProfiles.map((p: { id: string }) => p.id)).toEqual(space.speakers.filter((p: { id: string | null }) => p.id).map((p: { id: string }) => p.id));
    expect(space.hostProfiles.length).toBeGreaterThan(0);
    expect(microblogRequests() - before).toBe(2);
    expect(charged(res)).toBe(1 + 1 + 2 * (space.hostProfiles.length + space.speakerProfiles.length));
  });
});

describe('forum edges', () => {
  it('100 posts with their communities: one round trip for the posts, one for every community', async () => {
    const ids = visiblePostIds(svc, 100);
    const before = forumRequests();
    const res = await walk(`query($posts: [String!]) { lookupForum(posts: $posts) { posts { id subforum community { name } } missing } }`, { posts: ids });
    expect(res.body.errors).toBeUndefined();
    const posts = res.body.data.lookupForum.posts;
    expect(posts).toHaveLength(100);
    expect(posts.every((post: { subforum: string; community: { name: string } }) => post.community.name.toLowerCase() === post.subforum.toLowerCase())).toBe(true);
    expect(forumRequests() - before).toBe(2);
    expect(charged(res)).toBe(1 + 3 * 100 + 1 * 100);
  });

  it("a post's comments, each comment's post and parent comment, batched", async () => {
    const id = '1a0000c';
    const before = forumRequests();
    const res = await walk(`query($id: String!) { forumPost(id: $id) { id comments(limit: 20) { items { id parentId postId post { id } parent { id } } nextCursor } } }`, { id });
    expect(res.body.errors).toBeUndefined();
    const comments = res.body.data.forumPost.comments.items;
    expect(comments.length).toBeGreaterThan(1);
    for (const comment of comments) {
      expect(comment.post.id).toBe(id);
      expect(comment.parent?.id ?? null).toBe(comment.parentId.startsWith('t1_') ? comment.parentId.slice(3) : null);
    }
    const parents = present(comments.map((comment: { parent: unknown }) => comment.parent));
    expect(parents).toBeGreaterThan(0);
    // The post, its comment page, then one /api/info batch for every parent comment and one for their posts.
    expect(forumRequests() - before).toBeLessThanOrEqual(1 + 1 + 2);
    expect(charged(res)).toBe(1 + 3 + 3 * comments.length + 3 * comments.length + 3 * parents);
  });

  it("a community's posts matching a search", async () => {
    const rest = await svc.request('POST', '/v1/forum/subforums/programming/search', { key, body: { query: 'forum', limit: 5 } });
    const res = await walk('{ subforum(name: "programming") { name posts(query: "forum", limit: 5) { items { id subforum } nextCursor } } }');
    const items = res.body.data.subforum.posts.items;
    expect(items.map((p: { id: string }) => p.id)).toEqual(rest.body.data.map((p: { id: string }) => p.id));
    expect(charged(res)).toBe(1 + 1 + 3 * items.length);
  });
});

describe("the README's example queries", () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const examples = [...readme.matchAll(/```graphql\n([\s\S]*?)```/g)].map((match) => match[1]);

  it('are three, and each runs as pasted and is charged no more than the worst case it reported', async () => {
    expect(examples).toHaveLength(3);
    for (const query of examples) {
      const res = await walk(query);
      expect(res.body.errors, query).toBeUndefined();
      const { charged: spent, worstCase } = res.body.extensions.credits;
      expect(spent).toBe(charged(res));
      expect(spent).toBeGreaterThan(0);
      expect(spent).toBeLessThanOrEqual(worstCase);
    }
  });
});
