import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestService, type HttpResult, type TestService } from '../support/service.ts';
import { ForumPostShape, SubforumShape } from '../../adapters/shapes/forum-shapes.ts';
import { forumOf } from './forum-e2e-support.ts';
import { charged, expectError } from '../support/assertions.ts';

let svc: TestService;
let key: string;

beforeAll(async () => {
  svc = await startTestService();
});
// A workspace per test: the free tier's per-minute rate limit would otherwise run out mid-file.
beforeEach(async () => {
  ({ key } = await svc.newKey({ scopes: ['read:forum'] }));
});
afterEach(() => forumOf(svc).sim.faults.clear());
afterAll(async () => {
  await svc?.close();
});

const post = (path: string, body: unknown) => svc.request('POST', path, { key, body });

/** Follows `nextCursor` to the end, returning every page. */
async function allPages(path: string, body: Record<string, unknown>, maxPages = 30): Promise<HttpResult[]> {
  const pages: HttpResult[] = [];
  let cursor: string | undefined;
  do {
    const res = await post(path, cursor ? { ...body, cursor } : body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    pages.push(res);
    cursor = res.body.meta.nextCursor ?? undefined;
  } while (cursor && pages.length < maxPages);
  expect(cursor).toBeUndefined();
  return pages;
}

describe('POST /v1/forum/search/subforums', () => {
  it('finds communities by name, relevance first, billed 1 per community', async () => {
    const res = await post('/v1/forum/search/subforums', { query: 'programming' });
    expect(res.status).toBe(200);
    expect(SubforumShape.parse(res.body.data[0]).name).toBe('programming');
    expect(charged(res)).toBe(1 + res.body.data.length);
    expect('nextCursor' in res.body.meta).toBe(true);
  });

  it('removes NSFW communities and counts them only when something was removed', async () => {
    const hidden = await post('/v1/forum/search/subforums', { query: 'nsfwcorner' });
    expect(hidden.body.data.map((s: { name: string }) => s.name)).not.toContain('nsfwcorner');
    expect(hidden.body.meta.omittedNsfw).toBe(1);
    expect(charged(hidden)).toBe(1 + hidden.body.data.length);
    const shown = await post('/v1/forum/search/subforums', { query: 'nsfwcorner', includeNsfw: true });
    expect(shown.body.data[0]).toMatchObject({ name: 'nsfwcorner', over18: true });
    expect('omittedNsfw' in shown.body.meta).toBe(false);
    const clean = await post('/v1/forum/search/subforums', { query: 'programming' });
    expect('omittedNsfw' in clean.body.meta).toBe(false);
  });

  it('pages with a cursor; a page can be short or empty while nextCursor is non-null', async () => {
    const nsfw = Array.from({ length: 3 }, (_, i) => `zzlewd${i}`);
    const world = forumOf(svc).sim.world;
    for (const name of nsfw) if (!world.subforum(name)) world.addSubforum({ name, over18: true, description: 'zzpaging topic', subscribers: 900 - name.length });
    if (!world.subforum('zzclean1')) world.addSubforum({ name: 'zzclean1', description: 'zzpaging topic', subscribers: 1 });
    const pages = await allPages('/v1/forum/search/subforums', { query: 'zzpaging', limit: 2 });
    expect(pages[0].body.data).toHaveLength(0);
    expect(pages[0].body.meta).toMatchObject({ omittedNsfw: 2, nextCursor: expect.any(String) });
    expect(pages.flatMap((p) => p.body.data.map((s: { name: string }) => s.name))).toEqual(['zzclean1']);
    expect(pages.reduce((n, p) => n + (p.body.meta.omittedNsfw ?? 0), 0)).toBe(3);
    for (const page of pages) expect(charged(page)).toBe(1 + page.body.data.length);
  });

  it('sort activity favours busy communities', async () => {
    const res = await post('/v1/forum/search/subforums', { query: 'community', sort: 'activity', limit: 10, includeNsfw: true });
    const world = forumOf(svc).sim.world;
    const active = res.body.data.map((s: { name: string }) => world.subforum(s.name)!.activeUsers);
    expect(active).toEqual([...active].sort((a, b) => b - a));
  });

  it.each([
    [{ query: '' }, 'query'],
    [{ query: 'x'.repeat(501) }, 'query'],
    [{}, 'query'],
    [{ query: 'a', limit: 0 }, 'limit'],
    [{ query: 'a', limit: 101 }, 'limit'],
    [{ query: 'a', sort: 'new' }, 'sort'],
    [{ query: 'a', cursor: '' }, 'cursor'],
    [{ query: 'a', cursor: 'x'.repeat(4097) }, 'cursor'],
    [{ query: 'a', extra: 1 }, 'extra'],
  ])('400 for %j', async (body, field) => {
    expectError(await post('/v1/forum/search/subforums', body), 400, 'invalid_request', { field });
  });

  it('400 for a non-boolean includeNsfw', async () => {
    expectError(await post('/v1/forum/search/subforums', { query: 'a', includeNsfw: 'yes' }), 400, 'invalid_request');
  });

  it('a cursor from another query → 400', async () => {
    const first = await post('/v1/forum/search/subforums', { query: 'community', limit: 2 });
    expectError(await post('/v1/forum/search/subforums', { query: 'communities', limit: 2, cursor: first.body.meta.nextCursor }), 400, 'invalid_cursor');
    expectError(await post('/v1/forum/search/subforums', { query: 'community', limit: 2, includeNsfw: true, cursor: first.body.meta.nextCursor }), 400, 'invalid_cursor');
  });

  it('503 on upstream 429 that outlasts the retries', async () => {
    forumOf(svc).sim.faults.add({ route: '/subreddits/search', kind: 'rate_limit', retryAfterSeconds: 0 });
    expectError(await post('/v1/forum/search/subforums', { query: 'pics' }), 503, 'upstream_unavailable');
  });
});

describe('POST /v1/forum/search (site-wide posts)', () => {
  it('walks every page to nextCursor null, never repeats, bills every page', async () => {
    const pages = await allPages('/v1/forum/search', { query: 'forum', limit: 100, includeNsfw: true });
    const ids = pages.flatMap((p) => p.body.data.map((x: { id: string }) => x.id));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBeGreaterThan(0);
    for (const page of pages) {
      for (const item of page.body.data) ForumPostShape.parse(item);
      expect(charged(page)).toBe(1 + 3 * page.body.data.length);
    }
  });

  it('omits NSFW posts unless asked, with an exact count', async () => {
    const withNsfw = await post('/v1/forum/search', { query: 'nsfw:yes', limit: 100, includeNsfw: true });
    const n = withNsfw.body.data.length;
    expect(n).toBeGreaterThan(0);
    const without = await post('/v1/forum/search', { query: 'nsfw:yes', limit: 100 });
    expect(without.body.data).toHaveLength(0);
    expect(without.body.meta.omittedNsfw).toBe(n);
    expect(charged(without)).toBe(1);
  });

  it('filters: author, postType, subforum (r/ accepted), sort new, time window', async () => {
    const world = forumOf(svc).sim.world;
    const author = world.post(world.landmarks.posts.edited)!.author;
    const byAuthor = await post('/v1/forum/search', { query: 'a', author: `u/${author}`, includeNsfw: true, limit: 100 });
    expect(byAuthor.body.data.length).toBeGreaterThan(0);
    expect(byAuthor.body.data.every((p: { author: string }) => p.author === author)).toBe(true);
    const links = await post('/v1/forum/search', { query: 'forum', postType: 'link', limit: 100 });
    expect(links.body.data.length).toBeGreaterThan(0);
    expect(links.body.data.every((p: { isSelf: boolean }) => !p.isSelf)).toBe(true);
    const inPics = await post('/v1/forum/search', { query: 'forum', subforum: 'r/pics', limit: 100 });
    expect(inPics.body.data.every((p: { subforum: string }) => p.subforum === 'pics')).toBe(true);
    const newest = await post('/v1/forum/search', { query: 'forum', sort: 'new', limit: 50 });
    const times = newest.body.data.map((p: { createdUtc: number }) => p.createdUtc);
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const fresh = world.addPost({ subforum: 'programming', title: 'zzfreshword today', at: world.now() - 60 });
    const week = await post('/v1/forum/search', { query: 'zzfreshword', time: 'hour' });
    expect(week.body.data.map((p: { id: string }) => p.id)).toEqual([fresh.id]);
  });

  it.each([
    [{ query: 'a', postType: 'video' }, 'postType'],
    [{ query: 'a', time: 'decade' }, 'time'],
    [{ query: 'a', sort: 'best' }, 'sort'],
    [{ query: 'a', author: 'x' }, 'author'],
    [{ query: 'a', subforum: 'r/a' }, 'subforum'],
    [{ query: 'a', limit: 101 }, 'limit'],
    [{ query: 'a', limit: 0 }, 'limit'],
    [{ query: 'x'.repeat(501) }, 'query'],
  ])('400 for %j', async (body, field) => {
    expectError(await post('/v1/forum/search', body), 400, 'invalid_request', { field });
  });

  it('cursor bound to the filters', async () => {
    const first = await post('/v1/forum/search', { query: 'forum', limit: 5 });
    expect(first.body.meta.nextCursor).toEqual(expect.any(String));
    const again = await post('/v1/forum/search', { query: 'forum', limit: 5, cursor: first.body.meta.nextCursor });
    expect(again.status).toBe(200);
    expectError(await post('/v1/forum/search', { query: 'forum', limit: 5, sort: 'new', cursor: first.body.meta.nextCursor }), 400, 'invalid_cursor');
    expectError(await post('/v1/forum/subforums/pics/search', { query: 'forum', limit: 5, cursor: first.body.meta.nextCursor }), 400, 'invalid_cursor');
  });
});

describe('POST /v1/forum/subforums/{name}/search', () => {
  it('searches inside one community only', async () => {
    const res = await post('/v1/forum/subforums/AskForum/search', { query: 'a', postType: 'self', limit: 100 });
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeGreaterThan(0);
    expect(res.body.data.every((p: { subforum: string; isSelf: boolean }) => p.subforum === 'AskForum' && p.isSelf)).toBe(true);
    expect(charged(res)).toBe(1 + 3 * res.body.data.length);
  });

  it('404 for a nonexistent community, 404 with the reason for closed ones', async () => {
    expectError(await post('/v1/forum/subforums/nosuchplace/search', { query: 'a' }), 404, 'not_found');
    for (const [name, reason] of [
      ['secretclub', 'private'],
      ['bannedplace', 'banned'],
      ['quarantinedzone', 'quarantined'],
    ]) {
      expectError(await post(`/v1/forum/subforums/${name}/search`, { query: 'a' }), 404, 'not_found', { reason });
    }
  });

  it('400 for a bad community name or a body naming the community', async () => {
    expectError(await post('/v1/forum/subforums/a/search', { query: 'a' }), 400, 'invalid_request', { field: 'name' });
    expectError(await post('/v1/forum/subforums/pics/search', { query: 'a', subforum: 'pics' }), 400, 'invalid_request', { field: 'subforum' });
  });

  it('503 when the forum resets connections', async () => {
    forumOf(svc).sim.faults.add({ route: '/r/', kind: 'reset' });
    expectError(await post('/v1/forum/subforums/pics/search', { query: 'a' }), 503, 'upstream_unavailable');
  });
});
