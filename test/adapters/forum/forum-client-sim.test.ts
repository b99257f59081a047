import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startForumSim, type ForumSim } from '../../../adapters/sim/forum/forum-sim.ts';
import { createForumClient, type ForumClient } from '../../../adapters/forum/forum-client.ts';
import { createForumLoaders } from '../../../adapters/forum/forum-loaders.ts';
import { UpstreamHttpClient } from '../../../adapters/upstream/http-client.ts';
import { ForumCommentShape, ForumPostShape, SubforumShape } from '../../../adapters/shapes/forum-shapes.ts';
import { mapAndValidateForumPayload } from './fixture-support.ts';
import { postIdOf } from '../../../adapters/sim/forum/forum-ids.ts';
import { upstreamFailure } from '../../support/upstream-errors.ts';

let sim: ForumSim;
let client: ForumClient;

beforeAll(async () => {
  sim = await startForumSim({ seed: 42, size: 'small' });
  client = createForumClient({ baseUrl: sim.url, timeoutMs: 2000 });
});

afterAll(async () => {
  await client.close();
  await sim.close();
});

describe('sim payloads pass the same parser tests as the recorded fixtures', () => {
  it('every route family maps and validates', async () => {
    const raw = new UpstreamHttpClient({ baseUrl: sim.url, platform: 'forum' });
    const lm = sim.world.landmarks;
    const ids = [...Object.values(lm.posts).map((id) => `t3_${id}`), ...Object.values(lm.comments).map((id) => `t1_${id}`), 't5_2q000'];
    const calls: Array<[string, Record<string, string>]> = [
      ['/api/info', { id: ids.join(',') }],
      ['/api/info', { sr_name: Object.values(lm.subforums).join(',') }],
      ...Object.values(lm.posts).map((id): [string, Record<string, string>] => [`/comments/${id}`, { limit: '30', depth: '4' }]),
      [`/comments/${lm.posts.commentCases}/_/${lm.comments.reply}`, { context: '3' }],
      ['/r/programming/about', {}],
      ['/r/nsfwcorner/about', {}],
      ['/r/quarantinedzone/about', {}],
      ['/r/secretclub/about', {}],
      ['/r/bannedplace/about', {}],
      ['/subreddits/search', { q: 'community', include_over_18: 'on', limit: '100' }],
      ['/search', { q: 'forum', limit: '100', include_over_18: 'on' }],
      ['/r/pics/search', { q: 'the', restrict_sr: '1' }],
      ['/r/programming/new', { limit: '100' }],
      ['/r/programming/top', { t: 'all' }],
    ];
    let content = 0;
    let errors = 0;
    for (const [path, query] of calls) {
      const res = await raw.getJson(path, query);
      const counts = mapAndValidateForumPayload(res.body, res.status);
      content += counts.posts + counts.comments + counts.subforums;
      errors += counts.errors;
    }
    await raw.close();
    // about + comment tree of the private, quarantined and banned landmarks
    expect(errors).toBe(6);
    expect(content).toBeGreaterThan(300);
  });
});

describe('forum client against the sim over HTTP', () => {
  it('fetches 100 post ids in ONE upstream round trip through the loaders', async () => {
    const fresh = createForumClient({ baseUrl: sim.url });
    const loaders = createForumLoaders(fresh);
    const ids = Array.from({ length: 100 }, (_, i) => postIdOf(i + 100));
    const posts = await Promise.all(ids.map((id) => loaders.post.load(id)));
    expect(fresh.stats.requests).toBe(1);
    expect(posts.filter((p) => p !== null).length).toBeGreaterThan(90);
    for (const p of posts) if (p) ForumPostShape.parse(p);
    await fresh.close();
  });

  it('250 ids cost ceil(250/100) = 3 round trips', async () => {
    const fresh = createForumClient({ baseUrl: sim.url });
    const loaders = createForumLoaders(fresh);
    await loaders.post.loadMany(Array.from({ length: 250 }, (_, i) => postIdOf(i)));
    expect(fresh.stats.requests).toBe(3);
    await fresh.close();
  });

  it('comments come back complete with their post fields (posts fetched in one more batch)', async () => {
    const fresh = createForumClient({ baseUrl: sim.url });
    const loaders = createForumLoaders(fresh);
    const lm = sim.world.landmarks;
    const [edited, admin] = await Promise.all([loaders.comment.load(lm.comments.edited), loaders.comment.load(lm.comments.adminDistinguished)]);
    expect(ForumCommentShape.parse(edited)).toMatchObject({ postId: lm.posts.commentCases, edited: expect.any(Number) });
    expect(admin?.distinguished).toBe('admin');
    expect(admin?.linkTitle).toBe(sim.world.post(lm.posts.commentCases)!.title);
    expect(fresh.stats.requests).toBe(2);
    await fresh.close();
  });

  it('posts in private, quarantined and banned communities are not returned by /api/info', async () => {
    const lm = sim.world.landmarks.posts;
    const found = await client.getThings([`t3_${lm.inPrivate}`, `t3_${lm.inQuarantined}`, `t3_${lm.inBanned}`, `t3_${lm.nsfw}`]);
    expect([...found.keys()]).toEqual([`t3_${lm.nsfw}`]);
  });

  it('community about: found, not found, and each not-public reason', async () => {
    expect(SubforumShape.parse(await client.getSubforumAbout('programming')).name).toBe('programming');
    expect((await upstreamFailure(client.getSubforumAbout('doesnotexist123'))).kind).toBe('not_found');
    for (const [name, reason] of [
      ['secretclub', 'private'],
      ['quarantinedzone', 'quarantined'],
      ['bannedplace', 'banned'],
      ['goldlounge', 'gold_only'],
    ]) {
      const error = await upstreamFailure(client.getSubforumAbout(name));
      expect([error.kind, error.reason]).toEqual(['not_public', reason]);
    }
  });

  it('communities by name are case-insensitive and batched', async () => {
    const fresh = createForumClient({ baseUrl: sim.url });
    const loaders = createForumLoaders(fresh);
    const [a, b, missing] = await Promise.all([loaders.subforum.load('PROGRAMMING'), loaders.subforum.load('pics'), loaders.subforum.load('nope_nope')]);
    expect([a?.name, b?.name, missing]).toEqual(['programming', 'pics', null]);
    expect(fresh.stats.requests).toBe(1);
    await fresh.close();
  });

  it('site search pages with `after` until null, without repeats, and hides NSFW unless asked', async () => {
    const seen = new Set<string>();
    let after: string | undefined;
    let pages = 0;
    do {
      const page = await client.searchPosts({ q: 'the', limit: 100, after, sort: 'new' });
      for (const p of page.items) {
        expect(seen.has(p.id)).toBe(false);
        seen.add(p.id);
        expect(p.over18).toBe(false);
        expect(p.removedByCategory).toBeNull();
      }
      after = page.after ?? undefined;
      pages++;
    } while (after && pages < 10);
    expect(after).toBeUndefined();
    expect(seen.size).toBeGreaterThan(0);
    expect(seen.size).toBeLessThanOrEqual(250);
    const withNsfw = await client.searchPosts({ q: 'nsfw:yes', limit: 100, includeOver18: true });
    expect(withNsfw.items.length).toBeGreaterThan(0);
    expect(withNsfw.items.every((p) => p.over18)).toBe(true);
  });

  it('search operators: author, self, subreddit; in-community search stays in the community', async () => {
    const author = sim.world.post(postIdOf(50))!.author;
    const byAuthor = await client.searchPosts({ q: `author:${author}`, limit: 100, includeOver18: true });
    expect(byAuthor.items.length).toBeGreaterThan(0);
    expect(byAuthor.items.every((p) => p.author === author)).toBe(true);
    const selfOnly = await client.searchSubforumPosts('AskForum', { q: 'self:yes', limit: 100 });
    expect(selfOnly.items.length).toBeGreaterThan(0);
    expect(selfOnly.items.every((p) => p.isSelf && p.subforum === 'AskForum')).toBe(true);
    expect((await upstreamFailure(client.searchSubforumPosts('secretclub', { q: 'x' }))).reason).toBe('private');
  });

  it('community search: relevance puts the exact name first; NSFW only with include_over_18', async () => {
    const page = await client.searchSubforums({ q: 'programming', limit: 10 });
    expect(page.items[0].name).toBe('programming');
    const hidden = await client.searchSubforums({ q: 'nsfwcorner' });
    expect(hidden.items.map((s) => s.name)).not.toContain('nsfwcorner');
    const shown = await client.searchSubforums({ q: 'nsfwcorner', includeOver18: true });
    expect(shown.items[0]).toMatchObject({ name: 'nsfwcorner', over18: true });
  });

  it('comment tree: stubs appear past the limit and expand to the whole tree via morechildren', async () => {
    const postId = sim.world.landmarks.posts.bigThread;
    const page = await client.getCommentTree(postId, { limit: 50 });
    const comments = new Map(page.entries.flatMap((e) => (e.kind === 'comment' ? [[e.comment.id, e.comment]] : [])));
    const queue = page.entries.flatMap((e) => (e.kind === 'more' ? [e.more] : []));
    expect(queue.length).toBeGreaterThan(0);
    while (queue.length > 0) {
      const stub = queue.shift()!;
      if (stub.continueThread) continue;
      for (let i = 0; i < stub.children.length; i += 100) {
        const entries = await client.getMoreChildren(postId, stub.children.slice(i, i + 100), {
          title: page.post.title,
          author: page.post.author,
          url: page.post.url,
          numComments: page.post.numComments,
          over18: page.post.over18,
        });
        for (const e of entries) {
          if (e.kind === 'comment') comments.set(e.comment.id, e.comment);
          else queue.push(e.more);
        }
      }
    }
    expect(comments.size).toBe(page.post.numComments);
    for (const c of comments.values()) {
      const parent = c.parentId.slice(3);
      expect(c.parentId.startsWith('t3_') ? parent === postId : comments.has(parent)).toBe(true);
    }
  });

  it('comment tree: a deep chain is cut by depth with a continue-this-thread stub', async () => {
    const page = await client.getCommentTree(sim.world.landmarks.posts.deepThread, { depth: 5 });
    const stub = page.entries.find((e) => e.kind === 'more');
    expect(stub).toMatchObject({ kind: 'more', more: { continueThread: true, depth: 5 } });
    expect(page.entries.filter((e) => e.kind === 'comment')).toHaveLength(5);
  });

  it('comment tree of an unknown post is not found; of a private community not public', async () => {
    expect((await upstreamFailure(client.getCommentTree('zzzzzzzzz'))).kind).toBe('not_found');
    expect((await upstreamFailure(client.getCommentTree(sim.world.landmarks.posts.inPrivate))).reason).toBe('private');
  });

  it('posts by URL', async () => {
    const link = sim.world.post(sim.world.landmarks.posts.link)!;
    const posts = await client.getPostsByUrl(link.linkUrl!);
    expect(posts.map((p) => p.id)).toContain(link.id);
  });

  it('community listing pages stop at the platform cap', async () => {
    const page = await client.listSubforumPosts('programming', { sort: 'new', limit: 5 });
    expect(page.items).toHaveLength(5);
    expect(page.items[0].createdUtc).toBeGreaterThanOrEqual(page.items[4].createdUtc);
    expect(page.after).toBe(`t3_${page.items[4].id}`);
  });
});
