import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestService, type HttpResult, type TestService } from '../support/service.ts';
import { ForumCommentShape, ForumPostShape } from '../../adapters/shapes/forum-shapes.ts';
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

const lm = () => forumOf(svc).sim.world.landmarks;

describe('GET /v1/forum/posts/{id}', () => {
  it('returns the current state of a post, billed 1 + 3', async () => {
    const res = await svc.request('GET', `/v1/forum/posts/${lm().posts.stickiedLocked}`, { key });
    expect(res.status).toBe(200);
    expect(ForumPostShape.parse(res.body.data)).toMatchObject({ id: lm().posts.stickiedLocked, locked: true, stickied: true, distinguished: 'moderator' });
    expect(res.body.meta.requestId).toBe(res.headers.get('x-request-id'));
    expect(charged(res)).toBe(4);
  });

  it('reports archive and removal', async () => {
    const archived = await svc.request('GET', `/v1/forum/posts/${lm().posts.archived}`, { key });
    expect(archived.body.data.archived).toBe(true);
    const removed = await svc.request('GET', `/v1/forum/posts/${lm().posts.removedByModerator}`, { key });
    expect(removed.body.data).toMatchObject({ removedByCategory: 'moderator', selftext: '[removed]' });
    const deleted = await svc.request('GET', `/v1/forum/posts/${lm().posts.deletedByAuthor}`, { key });
    expect(deleted.body.data).toMatchObject({ removedByCategory: 'deleted', author: '[deleted]' });
  });

  it('shows a later change (the sim edits the post)', async () => {
    const id = lm().posts.link;
    forumOf(svc).sim.world.updatePost(id, { locked: true });
    expect((await svc.request('GET', `/v1/forum/posts/${id}`, { key })).body.data.locked).toBe(true);
  });

  it('404 for an unknown post; 404 with the reason for a post of a closed community', async () => {
    const unknown = await svc.request('GET', '/v1/forum/posts/zzzzzzzz', { key });
    expectError(unknown, 404, 'not_found');
    expect(unknown.body.error.details?.reason).toBeUndefined();
    expectError(await svc.request('GET', `/v1/forum/posts/${lm().posts.inPrivate}`, { key }), 404, 'not_found', { reason: 'private' });
    expectError(await svc.request('GET', `/v1/forum/posts/${lm().posts.inBanned}`, { key }), 404, 'not_found', { reason: 'banned' });
  });

  it('400 when the id breaks the pattern (too long, or not base-36)', async () => {
    expectError(await svc.request('GET', '/v1/forum/posts/abcdefghijklmn', { key }), 400, 'invalid_request', { field: 'id' });
    expectError(await svc.request('GET', '/v1/forum/posts/t3_abc', { key }), 400, 'invalid_request', { field: 'id' });
  });

  it('401 without a key, 403 without the forum scope', async () => {
    expectError(await svc.request('GET', `/v1/forum/posts/${lm().posts.edited}`), 401, 'unauthenticated');
    const { key: other } = await svc.newKey({ scopes: ['read:microblog'] });
    expectError(await svc.request('GET', `/v1/forum/posts/${lm().posts.edited}`, { key: other }), 403, 'insufficient_scope');
  });

  it('503 retryable when the forum is down; nothing charged', async () => {
    forumOf(svc).sim.faults.add({ route: '/api/info', kind: 'status', status: 500 });
    const res = await svc.request('GET', `/v1/forum/posts/${lm().posts.edited}`, { key });
    expectError(res, 503, 'upstream_unavailable');
    expect(res.body.error.retryable).toBe(true);
  });
});

describe('GET /v1/forum/posts/{id}/comments', () => {
  const path = () => `/v1/forum/posts/${lm().posts.bigThread}/comments`;

  it('walks the whole tree page by page, parents first, every page billed', async () => {
    const seen = new Set<string>();
    let cursor: string | null = null;
    let pages = 0;
    let credits = 0;
    do {
      const res: HttpResult = await svc.request('GET', `${path()}?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(100);
      for (const c of res.body.data) {
        ForumCommentShape.parse(c);
        if (c.parentId.startsWith('t1_')) expect(seen.has(c.parentId.slice(3))).toBe(true);
        expect(seen.has(c.id)).toBe(false);
        seen.add(c.id);
      }
      expect(charged(res)).toBe(1 + 3 * res.body.data.length);
      credits += charged(res);
      expect('nextCursor' in res.body.meta).toBe(true);
      cursor = res.body.meta.nextCursor;
      pages++;
    } while (cursor && pages < 20);
    expect(cursor).toBeNull();
    expect(seen.size).toBe(600);
    expect(credits).toBe(pages + 3 * 600);
  });

  it('depth 1 gives top-level comments only; sort new orders them newest first', async () => {
    const res = await svc.request('GET', `${path()}?depth=1&sort=new&limit=50`, { key });
    expect(res.body.data.every((c: { parentId: string }) => c.parentId === `t3_${lm().posts.bigThread}`)).toBe(true);
    const times = res.body.data.filter((c: { stickied: boolean }) => !c.stickied).map((c: { createdUtc: number }) => c.createdUtc);
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it('returns deleted and removed comments as the platform shows them', async () => {
    const res = await svc.request('GET', `/v1/forum/posts/${lm().posts.commentCases}/comments`, { key });
    const byId = new Map(res.body.data.map((c: { id: string }) => [c.id, c]));
    expect(byId.get(lm().comments.deleted)).toMatchObject({ body: '[deleted]', author: '[deleted]' });
    expect(byId.get(lm().comments.removed)).toMatchObject({ body: '[removed]' });
    expect(byId.get(lm().comments.reply)).toMatchObject({ parentId: `t1_${lm().comments.edited}` });
    expect(res.body.meta.nextCursor).toBeNull();
  });

  it('a cursor is bound to its request: changed parameters, another post or another operation → 400', async () => {
    const first = await svc.request('GET', `${path()}?limit=10`, { key });
    const cursor = encodeURIComponent(first.body.meta.nextCursor);
    expect((await svc.request('GET', `${path()}?limit=10&cursor=${cursor}`, { key })).status).toBe(200);
    expectError(await svc.request('GET', `${path()}?limit=11&cursor=${cursor}`, { key }), 400, 'invalid_cursor');
    expectError(await svc.request('GET', `${path()}?limit=10&sort=new&cursor=${cursor}`, { key }), 400, 'invalid_cursor');
    expectError(await svc.request('GET', `/v1/forum/posts/${lm().posts.deepThread}/comments?limit=10&cursor=${cursor}`, { key }), 400, 'invalid_cursor');
    const search = await svc.request('POST', '/v1/forum/search', { key, body: { query: 'forum', limit: 10, cursor: first.body.meta.nextCursor } });
    expectError(search, 400, 'invalid_cursor');
  });

  it('a hand-edited cursor → 400', async () => {
    const first = await svc.request('GET', `${path()}?limit=10`, { key });
    const cursor: string = first.body.meta.nextCursor;
    const [payload, mac] = cursor.split('.');
    const state = JSON.parse(Buffer.from(payload, 'base64url').toString());
    state.s.q = [];
    const forged = `${Buffer.from(JSON.stringify(state)).toString('base64url')}.${mac}`;
    expectError(await svc.request('GET', `${path()}?limit=10&cursor=${encodeURIComponent(forged)}`, { key }), 400, 'invalid_cursor');
    expectError(await svc.request('GET', `${path()}?limit=10&cursor=garbage`, { key }), 400, 'invalid_cursor');
  });

  it.each([
    ['depth=0', 'depth'],
    ['depth=11', 'depth'],
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['sort=best', 'sort'],
    [`cursor=${'a'.repeat(4097)}`, 'cursor'],
    ['cursor=', 'cursor'],
    ['color=red', 'color'],
  ])('400 for %s', async (query, field) => {
    expectError(await svc.request('GET', `${path()}?${query}`, { key }), 400, 'invalid_request', { field });
  });

  it('404 for an unknown post; 404 with the reason for a quarantined community', async () => {
    expectError(await svc.request('GET', '/v1/forum/posts/zzzzzzzz/comments', { key }), 404, 'not_found');
    expectError(await svc.request('GET', `/v1/forum/posts/${lm().posts.inQuarantined}/comments`, { key }), 404, 'not_found', { reason: 'quarantined' });
  });

  it('503 when the forum times out', async () => {
    forumOf(svc).sim.faults.add({ route: '/comments/', kind: 'reset' });
    expectError(await svc.request('GET', path(), { key }), 503, 'upstream_unavailable');
  });
});
