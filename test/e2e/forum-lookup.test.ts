import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { ForumCommentShape, ForumPostShape, SubforumShape } from '../../adapters/shapes/forum-shapes.ts';
import { forumOf, postIds } from './forum-e2e-support.ts';
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

const lookup = (body: unknown) => svc.request('POST', '/v1/forum/lookup', { key, body });
const lm = () => forumOf(svc).sim.world.landmarks;

describe('POST /v1/forum/lookup', () => {
  it('accepts every form of reference and returns current state in request order', async () => {
    const p = lm().posts;
    const c = lm().comments;
    const res = await lookup({
      posts: [p.edited, `t3_${p.link}`, `https://www.reddit.com/r/programming/comments/${p.deletedByAuthor}/slug/`, `https://redd.it/${p.archived}`],
      comments: [c.edited, `t1_${c.deleted}`, `https://www.reddit.com/r/programming/comments/${p.commentCases}/x/${c.reply}/`],
      subforums: ['programming', 'r/pics', 'https://www.reddit.com/r/AskForum/'],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.posts.map((x: { id: string }) => x.id)).toEqual([p.edited, p.link, p.deletedByAuthor, p.archived]);
    expect(res.body.data.comments.map((x: { id: string }) => x.id)).toEqual([c.edited, c.deleted, c.reply]);
    expect(res.body.data.subforums.map((x: { name: string }) => x.name)).toEqual(['programming', 'pics', 'AskForum']);
    for (const x of res.body.data.posts) ForumPostShape.parse(x);
    for (const x of res.body.data.comments) ForumCommentShape.parse(x);
    for (const x of res.body.data.subforums) SubforumShape.parse(x);
    expect(res.body.meta.missing).toEqual([]);
    expect(charged(res)).toBe(1 + 3 * 4 + 3 * 3 + 3);
  });

  it('lists what was not returned in meta.missing and does not bill it', async () => {
    const res = await lookup({
      posts: [lm().posts.edited, 'zzzzzzz1', lm().posts.inPrivate],
      comments: ['g00zzzz'],
      subforums: ['programming', 'secretclub', 'quarantinedzone', 'bannedplace', 'nothere123'],
    });
    expect(res.status).toBe(200);
    expect(res.body.meta.missing).toEqual([
      't3_zzzzzzz1',
      `t3_${lm().posts.inPrivate}`,
      't1_g00zzzz',
      'r/secretclub',
      'r/quarantinedzone',
      'r/bannedplace',
      'r/nothere123',
    ]);
    expect(charged(res)).toBe(1 + 3 + 1);
  });

  it('is not NSFW-filtered', async () => {
    const res = await lookup({ posts: [lm().posts.nsfw], subforums: ['nsfwcorner'] });
    expect(res.body.data.posts[0].over18).toBe(true);
    expect(res.body.data.subforums[0].over18).toBe(true);
  });

  it('100 posts cost ONE upstream round trip', async () => {
    const { client } = forumOf(svc);
    const before = client.stats.requests;
    const res = await lookup({ posts: postIds(100, 100) });
    expect(res.status).toBe(200);
    expect(client.stats.requests - before).toBe(1);
    expect(res.body.data.posts.length + res.body.meta.missing.length).toBe(100);
  });

  it('duplicates are looked up and returned once', async () => {
    const id = lm().posts.edited;
    const res = await lookup({ posts: [id, `t3_${id}`, id.toUpperCase()] });
    expect(res.body.data.posts).toHaveLength(1);
    expect(charged(res)).toBe(4);
  });

  it('refuses share links with 400 unsupported_link naming the entry', async () => {
    const share = 'https://www.reddit.com/r/pics/s/a1B2c3D4';
    expectError(await lookup({ posts: [lm().posts.edited, share] }), 400, 'unsupported_link', { field: 'posts', index: 1, entry: share });
    expectError(await lookup({ comments: [share] }), 400, 'unsupported_link', { field: 'comments', entry: share });
    expectError(await lookup({ subforums: [share] }), 400, 'unsupported_link', { field: 'subforums', entry: share });
  });

  it('400 naming an unreadable entry', async () => {
    expectError(await lookup({ posts: ['https://example.com/news'] }), 400, 'invalid_request', { field: 'posts', entry: 'https://example.com/news' });
    expectError(await lookup({ subforums: ['r/x'] }), 400, 'invalid_request', { field: 'subforums' });
  });

  it.each([
    [{ posts: postIds(101) }, 'posts'],
    [{ comments: postIds(101) }, 'comments'],
    [{ posts: postIds(60), comments: postIds(41) }, 'posts'],
    [{ subforums: Array.from({ length: 101 }, (_, i) => `sub_${i}xx`) }, 'subforums'],
    [{ posts: [''] }, 'posts.0'],
    [{ posts: ['x'.repeat(2049)] }, 'posts.0'],
    [{}, 'posts'],
    [{ posts: [] }, 'posts'],
    [{ users: ['x'] }, 'users'],
  ])('400 for bound %#', async (body, field) => {
    expectError(await lookup(body), 400, 'invalid_request', { field });
  });

  it('exactly 100 posts and comments together, and 100 communities, are accepted', async () => {
    const res = await lookup({ posts: postIds(60), comments: postIds(40), subforums: Array.from({ length: 100 }, (_, i) => `sub_${i}xx`) });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
  });

  // A reset connection on every attempt: the upstream client's own timeout is tested on an injected short one
  // (test/adapters/upstream/http-client.test.ts), not by waiting out the service's 10 s three times here.
  it('503 when the forum is unavailable', async () => {
    forumOf(svc).sim.faults.add({ route: '/api/info', kind: 'reset' });
    const res = await lookup({ posts: [lm().posts.edited] });
    expectError(res, 503, 'upstream_unavailable');
  });

  it('401 and 403', async () => {
    expectError(await svc.request('POST', '/v1/forum/lookup', { body: { posts: ['abc'] } }), 401, 'unauthenticated');
    const { key: other } = await svc.newKey({ scopes: ['usage:read'] });
    expectError(await svc.request('POST', '/v1/forum/lookup', { key: other, body: { posts: ['abc'] } }), 403, 'insufficient_scope');
  });
});

describe('GET /v1/forum/subforums/{name}', () => {
  it('returns community metadata, billed 1 + 1', async () => {
    const res = await svc.request('GET', '/v1/forum/subforums/announcements', { key });
    expect(res.status).toBe(200);
    expect(SubforumShape.parse(res.body.data)).toMatchObject({ name: 'announcements', subforumType: 'restricted', id: expect.stringMatching(/^t5_/) });
    expect(charged(res)).toBe(2);
  });

  it('accepts a two-letter language community and 21-character names', async () => {
    expect((await svc.request('GET', '/v1/forum/subforums/nl', { key })).body.data).toMatchObject({ name: 'nl', lang: 'nl' });
    const world = forumOf(svc).sim.world;
    const long = 'a2345678901234567890z';
    if (!world.subforum(long)) world.addSubforum({ name: long });
    expect((await svc.request('GET', `/v1/forum/subforums/${long}`, { key })).status).toBe(200);
  });

  it('404 for a nonexistent community', async () => {
    const res = await svc.request('GET', '/v1/forum/subforums/nosuchplace', { key });
    expectError(res, 404, 'not_found');
    expect(res.body.error.details?.reason).toBeUndefined();
  });

  it.each([
    ['secretclub', 'private'],
    ['bannedplace', 'banned'],
    ['quarantinedzone', 'quarantined'],
    ['goldlounge', 'gold_only'],
  ])('404 with details.reason for %s', async (name, reason) => {
    expectError(await svc.request('GET', `/v1/forum/subforums/${name}`, { key }), 404, 'not_found', { reason });
  });

  it.each(['a', 'abc-d', '_abc', 'a23456789012345678901z', 'r%2Fpics'])('400 for the name %s', async (name) => {
    expectError(await svc.request('GET', `/v1/forum/subforums/${name}`, { key }), 400, 'invalid_request', { field: 'name' });
  });

  it('503 on a 5xx from the forum', async () => {
    forumOf(svc).sim.faults.add({ route: '/r/', kind: 'status', status: 502 });
    expectError(await svc.request('GET', '/v1/forum/subforums/pics', { key }), 503, 'upstream_unavailable');
  });
});
