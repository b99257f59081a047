import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SIM_ACCOUNTS, SIM_LISTS } from '../../adapters/sim/microblog/microblog-world-generator.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { microblogOf } from './microblog-e2e-support.ts';

/**
 * Platforms take the page size as a hint and may send more (the microblog's web timelines, forum search): a page
 * still holds at most `limit` items, is charged within the worst case priced on that limit, and the items past the
 * cut come first on the next page, so a walk returns each item once.
 */

let svc: TestService;
let key: string;
const microblog = () => svc.service.platforms.sims.microblog!.world;
const forum = () => svc.service.platforms.sims.forum!.world;

beforeAll(async () => {
  svc = await startTestService({ tiers: { free: { rateLimitPerMinute: 100_000 } } });
  ({ key } = await svc.newKey());
});
afterAll(async () => {
  await svc?.close();
});
afterEach(() => {
  microblogOf(svc).sim.faults.clear();
  microblog().paging = {};
  forum().paging = {};
});

interface Walked {
  ids: string[];
  sizes: number[];
  charged: number[];
  worstCases: number[];
}

/** Walks a REST operation to its end (at most 60 pages); each page's ids, charge and dry-run worst case. */
async function walk(method: 'GET' | 'POST', path: string, body?: Record<string, unknown>): Promise<Walked> {
  const out: Walked = { ids: [], sizes: [], charged: [], worstCases: [] };
  let cursor: string | null = null;
  for (let page = 0; page < 60; page++) {
    const target: string = method === 'GET' && cursor ? `${path}&cursor=${encodeURIComponent(cursor)}` : path;
    const sent = method === 'POST' ? { ...body, ...(cursor ? { cursor } : {}) } : undefined;
    const dry = await svc.request(method, target, { key, body: sent, headers: { 'x-dry-run': 'true' } });
    expect(dry.status).toBe(200);
    const res: { status: number; headers: Headers; body: any } = await svc.request(method, target, { key, body: sent });
    expect(res.status).toBe(200);
    out.ids.push(...res.body.data.map((item: { id: string }) => item.id));
    out.sizes.push(res.body.data.length);
    out.charged.push(Number(res.headers.get('x-credits-charged')));
    out.worstCases.push(dry.body.meta.estimate.worstCaseCredits);
    cursor = res.body.meta.nextCursor;
    if (cursor === null) return out;
  }
  throw new Error(`walk did not end: ${out.ids.length}`);
}

function expectExactWalk(walked: Walked, limit: number, expected: string[]): void {
  expect(Math.max(...walked.sizes)).toBeLessThanOrEqual(limit);
  walked.charged.forEach((charged, page) => expect(charged).toBeLessThanOrEqual(walked.worstCases[page]));
  expect(new Set(walked.ids).size).toBe(walked.ids.length);
  expect(walked.ids).toEqual(expected);
}

describe('a platform that sends more than a page asked for', () => {
  const REST_CASES: Array<[string, 'GET' | 'POST', string, Record<string, unknown>?]> = [
    ['a user timeline', 'GET', `/v1/microblog/users/${SIM_ACCOUNTS.org}/posts?limit=3`],
    ['List members', 'GET', `/v1/microblog/lists/${SIM_LISTS.public}/members?limit=3`],
    ['microblog post search', 'POST', '/v1/microblog/search', { from: [SIM_ACCOUNTS.org], limit: 3 }],
  ];

  it.each(REST_CASES)('%s: pages of at most `limit`, charged within the worst case, every item once', async (_name, method, path, body) => {
    const all = await walk(method, path.replace('limit=3', 'limit=100'), body && { ...body, limit: 100 });
    expect(all.ids.length).toBeGreaterThan(5);
    microblog().paging = { overfill: 4 };
    const cut = await walk(method, path, body);
    expectExactWalk(cut, 3, all.ids);
    expect(cut.sizes.filter((size) => size === 3).length).toBeGreaterThan(1);
  });

  it('the recorded Retweeters page (19 reposters for count 3): pages of 3 from one platform round trip while the held reposters fill them, each reposter once', async () => {
    const recorded = JSON.parse(readFileSync(new URL('../fixtures/upstream/microblog-x/Retweeters.json', import.meta.url), 'utf8'));
    const { sim, client } = microblogOf(svc);
    sim.faults.add({ route: '/\\/Retweeters$/', kind: 'answer', body: recorded, count: 1 });
    const path = '/v1/microblog/posts/1789054061729173804/reposters?limit=3';
    const before = client.stats.requests;
    const ids: string[] = [];
    const requests: number[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 7; page++) {
      const res: { status: number; headers: Headers; body: any } = await svc.request('GET', `${path}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key });
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(3);
      expect(Number(res.headers.get('x-credits-charged'))).toBe(1 + res.body.data.length);
      ids.push(...res.body.data.map((profile: { id: string }) => profile.id));
      cursor = res.body.meta.nextCursor;
      requests.push(client.stats.requests - before);
    }
    // Twenty entries, one of them UserUnavailable. The seventh page, one reposter short of 3, is filled from the
    // platform's next page (here the simulator's: none).
    expect(ids).toHaveLength(19);
    expect(new Set(ids).size).toBe(19);
    expect(requests).toEqual([1, 1, 1, 1, 1, 1, 2]);
  });

  it('a timeline of multi-byte text (Japanese): the held posts outgrow a cursor in bytes, not characters, and every page is served', async () => {
    const plain = microblog().userByName(SIM_ACCOUNTS.plain)!;
    const author = microblog().addUser({ ...plain, id: microblog().nextId(microblog().now), username: 'nihongo_poster' });
    for (let i = 0; i < 8; i++) microblog().addPost({ authorId: author.id, text: `${i}${'日本語の投稿です。'.repeat(15)}`.slice(0, 140) });
    const path = `/v1/microblog/users/${author.username}/posts?`;
    const all = await walk('GET', `${path}limit=100`);
    expect(all.ids).toHaveLength(8);
    microblog().paging = { overfill: 3 };
    for (const limit of [2, 3, 4]) expectExactWalk(await walk('GET', `${path}limit=${limit}`), limit, all.ids);
  });

  it('a page left short by the held posts is filled from the platform: full pages, each paying the minimum once', async () => {
    const path = `/v1/microblog/users/${SIM_ACCOUNTS.org}/posts?limit=5`;
    const all = await walk('GET', path.replace('limit=5', 'limit=100'));
    microblog().paging = { overfill: 2 };
    const cut = await walk('GET', path);
    expectExactWalk(cut, 5, all.ids);
    // Every page full until the posts run out (the platform then ends on an empty page, as it does unasked).
    const full = Math.floor(all.ids.length / 5);
    expect(cut.sizes.slice(0, full)).toEqual(Array(full).fill(5));
    expect(cut.sizes.length).toBeLessThanOrEqual(full + 2);
    cut.charged.slice(1).forEach((charged, page) => expect(charged).toBe(1 + cut.sizes[page + 1]));
  });

  it('the next cursor never carries the posts held past the cut (not yet paid for), however small: it names their stored copy', async () => {
    const plain = microblog().userByName(SIM_ACCOUNTS.plain)!;
    const author = microblog().addUser({ ...plain, id: microblog().nextId(microblog().now), username: 'short_poster' });
    for (let i = 0; i < 4; i++) microblog().addPost({ authorId: author.id, text: `short post number ${i}` });
    microblog().paging = { overfill: 3 };
    const path = `/v1/microblog/users/${author.username}/posts?limit=1`;
    const first = await svc.request('GET', path, { key });
    expect(first.status).toBe(200);
    const payload = Buffer.from(first.body.meta.nextCursor.split('.')[0], 'base64url').toString('utf8');
    expect(payload).not.toContain('short post');
    const next = await svc.request('GET', `${path}&cursor=${encodeURIComponent(first.body.meta.nextCursor)}`, { key });
    expect(next.body.data).toHaveLength(1);
    expect(payload).not.toContain(next.body.data[0].id);
  });

  it('followers, whose page size the platform chooses: pages of at most the 100 the worst case is priced on, every follower once', async () => {
    const org = microblog().userByName(SIM_ACCOUNTS.org)!;
    const plain = microblog().userByName(SIM_ACCOUNTS.plain)!;
    for (let i = 0; i < 100; i++) {
      const follower = microblog().addUser({ ...plain, id: microblog().nextId(microblog().now), username: `extra_follower_${i}` });
      microblog().follow(follower.id, org.id);
    }
    const path = `/v1/microblog/users/${SIM_ACCOUNTS.org}/followers?`;
    const all = await walk('GET', path);
    expect(all.ids.length).toBeGreaterThan(140);
    microblog().paging = { overfill: 60 };
    const cut = await walk('GET', path);
    expectExactWalk(cut, 100, all.ids);
    expect(cut.sizes[0]).toBe(100);
  });

  it('forum post search: pages of at most `limit`, every result once', async () => {
    const query = { query: 'e', subforum: 'programming', limit: 5, includeNsfw: true };
    const all = await walk('POST', '/v1/forum/search', { ...query, limit: 100 });
    expect(all.ids.length).toBeGreaterThan(10);
    forum().paging = { overfill: 7 };
    const cut = await walk('POST', '/v1/forum/search', query);
    expectExactWalk(cut, 5, all.ids);
  });

  it('forum in-community search: pages of at most `limit`, every result once', async () => {
    const query = { query: 'e', limit: 4, includeNsfw: true };
    const all = await walk('POST', '/v1/forum/subforums/programming/search', { ...query, limit: 100 });
    expect(all.ids.length).toBeGreaterThan(8);
    forum().paging = { overfill: 5 };
    expectExactWalk(await walk('POST', '/v1/forum/subforums/programming/search', query), 4, all.ids);
  });

  it('forum community search: pages of at most `limit`', async () => {
    const query = { query: 'a', limit: 2, includeNsfw: true };
    const all = await walk('POST', '/v1/forum/search/subforums', { ...query, limit: 100 });
    expect(all.ids.length).toBeGreaterThan(2);
    forum().paging = { overfill: 3 };
    expectExactWalk(await walk('POST', '/v1/forum/search/subforums', query), 2, all.ids);
  });

  it('a GraphQL walk: each edge page at most its limit, charged within the worst case, its cursor resuming after the cut', async () => {
    const query = `query($cursor: String) { microblogUser(user: "${SIM_ACCOUNTS.org}") { posts(limit: 3, cursor: $cursor) { items { id } nextCursor } } }`;
    const expected: string[] = [];
    let cursor: string | null = null;
    do {
      const res: { body: any } = await svc.graphql(query.replace('limit: 3', 'limit: 100'), { cursor }, key);
      expected.push(...res.body.data.microblogUser.posts.items.map((item: { id: string }) => item.id));
      cursor = res.body.data.microblogUser.posts.nextCursor;
    } while (cursor);
    microblog().paging = { overfill: 5 };
    const ids: string[] = [];
    for (let page = 0; page < 60; page++) {
      const res: { body: any } = await svc.graphql(query, { cursor }, key);
      const posts = res.body.data.microblogUser.posts;
      expect(posts.items.length).toBeLessThanOrEqual(3);
      expect(res.body.extensions.credits.charged).toBeLessThanOrEqual(res.body.extensions.credits.worstCase);
      ids.push(...posts.items.map((item: { id: string }) => item.id));
      cursor = posts.nextCursor;
      if (!cursor) break;
    }
    expect(ids).toEqual(expected);
  });

  it('two aliased walks with the default limit stay within the worst case', async () => {
    microblog().paging = { overfill: 30 };
    const res = await svc.graphql(`{ microblogUser(user: "${SIM_ACCOUNTS.org}") { x: posts { items { id } } y: posts(limit: 5) { items { id } } } }`, {}, key);
    expect(res.body.data.microblogUser.x.items.length).toBeLessThanOrEqual(20);
    expect(res.body.data.microblogUser.y.items.length).toBeLessThanOrEqual(5);
    expect(res.body.extensions.credits.charged).toBeLessThanOrEqual(res.body.extensions.credits.worstCase);
  });
});
