import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MicroblogListShape, MicroblogSpaceShape } from '../../adapters/shapes/microblog-shapes.ts';
import { SIM_ACCOUNTS, SIM_LISTS, SIM_POSTS, SIM_SPACES, SIM_USER_IDS } from '../../adapters/sim/microblog/microblog-world-generator.ts';
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
  ({ key } = await svc.newKey({ scopes: ['read:social'] }));
});
afterEach(() => microblogOf(svc).sim.faults.clear());
afterAll(async () => {
  await svc?.close();
});

const world = () => microblogOf(svc).sim.world;
const get = (path: string) => svc.request('GET', path, { key });
const search = (body: Record<string, unknown>) => svc.request('POST', '/v1/microblog/search', { key, body });

describe('Lists', () => {
  it('GET /v1/microblog/lists/{id}: a public List, billed 1 + 2', async () => {
    const res = await get(`/v1/microblog/lists/${SIM_LISTS.public}`);
    expect(res.status).toBe(200);
    expect(MicroblogListShape.parse(res.body.data)).toMatchObject({
      id: SIM_LISTS.public,
      name: 'Sim builders',
      url: `https://x.com/i/lists/${SIM_LISTS.public}`,
      memberCount: 45,
      subscriberCount: 321,
      ownerId: SIM_USER_IDS.org,
      owner: { username: SIM_ACCOUNTS.org },
    });
    expect(charged(res)).toBe(3);
  });

  it('404 for a private or unknown List; 400 for a non-numeric id', async () => {
    expectError(await get(`/v1/microblog/lists/${SIM_LISTS.private}`), 404, 'not_found', { reason: 'private' });
    expectError(await get('/v1/microblog/lists/42'), 404, 'not_found');
    expectError(await get('/v1/microblog/lists/abc'), 400, 'invalid_request', { field: 'id' });
  });

  it('members in the platform order, paged; billed per user', async () => {
    const list = world().lists.get(SIM_LISTS.public)!;
    const expected = list.memberIds.filter((id) => !world().users.get(id)!.suspended);
    const first = await get(`/v1/microblog/lists/${SIM_LISTS.public}/members?limit=30`);
    expect(first.status).toBe(200);
    expect(charged(first)).toBe(1 + 30);
    const second = await get(`/v1/microblog/lists/${SIM_LISTS.public}/members?limit=30&cursor=${encodeURIComponent(first.body.meta.nextCursor)}`);
    const got = [...first.body.data, ...second.body.data].map((p: { id: string }) => p.id);
    expect(got).toEqual(expected);
    // The List's member count tells that this page is the last: no billed empty page after it.
    if (got.length >= list.memberIds.length) expect(second.body.meta.nextCursor).toBeNull();
    expectError(await get(`/v1/microblog/lists/${SIM_LISTS.public}/members?limit=101`), 400, 'invalid_request', { field: 'limit' });
    expectError(await get(`/v1/microblog/lists/${SIM_LISTS.private}/members`), 404, 'not_found', { reason: 'private' });
  });

  it('a member count that lags the List (members listed past it): the walk follows the platform to its end, none lost', async () => {
    const members = world().lists.get(SIM_LISTS.public)!.memberIds;
    const counted = members.length;
    const path = `/v1/microblog/lists/${SIM_LISTS.public}/members?limit=10`;
    const first = await get(path);
    try {
      // The List counted `counted` on the first page; 25 more are listed behind them, past that count.
      const extra = [...world().users.values()].filter((u) => !u.suspended && !members.includes(u.id)).slice(0, 25);
      members.push(...extra.map((u) => u.id));
      const seen: string[] = first.body.data.map((p: { id: string }) => p.id);
      let cursor: string | null = first.body.meta.nextCursor;
      for (let page = 0; cursor && page < 20; page++) {
        const next: { body: any } = await get(`${path}&cursor=${encodeURIComponent(cursor)}`);
        expect(next.body.data.length).toBeLessThanOrEqual(10);
        expect(next.body.meta).not.toHaveProperty('truncated');
        seen.push(...next.body.data.map((p: { id: string }) => p.id));
        cursor = next.body.meta.nextCursor;
      }
      expect(cursor).toBeNull();
      expect(seen).toEqual(members.filter((id) => !world().users.get(id)!.suspended));
    } finally {
      members.splice(counted);
    }
  });

  it("List posts: the members' posts, newest first", async () => {
    const res = await get(`/v1/microblog/lists/${SIM_LISTS.public}/posts?limit=15`);
    expect(res.status).toBe(200);
    const members = new Set(world().lists.get(SIM_LISTS.public)!.memberIds);
    expect(res.body.data).toHaveLength(15);
    expect(res.body.data.every((p: { author: { id: string } }) => members.has(p.author.id))).toBe(true);
    const times = res.body.data.map((p: { createdAt: string }) => Date.parse(p.createdAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(charged(res)).toBe(1 + 15);
    expectError(await get('/v1/microblog/lists/42/posts'), 404, 'not_found');
  });
});

describe('GET /v1/microblog/spaces/{id}', () => {
  it('state, title, hosts and speakers, participant count and times', async () => {
    const running = await get(`/v1/microblog/spaces/${SIM_SPACES.running}`);
    expect(running.status).toBe(200);
    expect(MicroblogSpaceShape.parse(running.body.data)).toMatchObject({ state: 'Running', participantCount: 1234, endedAt: null });
    expect(running.body.data.hosts.map((h: { username: string }) => h.username)).toEqual([SIM_ACCOUNTS.org, SIM_ACCOUNTS.blue]);
    expect(running.body.data.speakers.map((h: { username: string }) => h.username)).toEqual([SIM_ACCOUNTS.plain, SIM_ACCOUNTS.threader]);
    expect(charged(running)).toBe(2);
    const scheduled = await get(`/v1/microblog/spaces/${SIM_SPACES.scheduled}`);
    expect(scheduled.body.data).toMatchObject({ state: 'NotStarted', startedAt: null });
    expect(scheduled.body.data.scheduledStart).not.toBeNull();
    const ended = await get(`/v1/microblog/spaces/${SIM_SPACES.ended}`);
    expect(Date.parse(ended.body.data.endedAt)).toBeGreaterThan(Date.parse(ended.body.data.startedAt));
  });

  it('404 for an unknown Space, 400 for an id out of pattern', async () => {
    expectError(await get('/v1/microblog/spaces/1nothere'), 404, 'not_found');
    expectError(await get('/v1/microblog/spaces/not-a-space'), 400, 'invalid_request', { field: 'id' });
  });
});

describe('POST /v1/microblog/search', () => {
  it('free text and structured filters combine with AND', async () => {
    const res = await search({ query: 'edited docs', from: [`@${SIM_ACCOUNTS.blue}`], hashtags: ['Launch'] });
    expect(res.status).toBe(200);
    expect(res.body.data.map((p: { id: string }) => p.id)).toEqual([SIM_POSTS.editedLatest]);
    expect(charged(res)).toBe(2);
  });

  it('each filter holds on every result', async () => {
    const media = await search({ hasMedia: true, from: [SIM_ACCOUNTS.org], limit: 50 });
    expect(media.body.data.length).toBeGreaterThan(0);
    expect(media.body.data.every((p: { media: unknown[]; author: { username: string } }) => p.media.length > 0 && p.author.username === SIM_ACCOUNTS.org)).toBe(true);
    const noReplies = await search({ query: 'carol', replies: 'exclude', limit: 50 });
    expect(noReplies.body.data.every((p: { inReplyToId: string | null }) => p.inReplyToId === null)).toBe(true);
    const onlyReplies = await search({ to: [SIM_ACCOUNTS.threader], replies: 'only', limit: 50 });
    expect(onlyReplies.body.data.length).toBeGreaterThan(0);
    expect(onlyReplies.body.data.every((p: { inReplyToId: string | null }) => p.inReplyToId !== null)).toBe(true);
    const quotes = await search({ quotes: 'only', from: [SIM_ACCOUNTS.blue] });
    expect(quotes.body.data.length).toBeGreaterThan(0);
    // A quote of a deleted or protected post has no quotedPost to show, but is still a quote.
    expect(quotes.body.data.every((p: { id: string }) => world().posts.get(p.id)!.quotedId !== null)).toBe(true);
    const reposts = await search({ reposts: 'only', limit: 20 });
    expect(reposts.body.data.length).toBeGreaterThan(0);
    expect(reposts.body.data.every((p: { repostedPost: unknown }) => p.repostedPost !== null)).toBe(true);
    const popular = await search({ minLikes: 1000, sort: 'top', limit: 20 });
    const likes = popular.body.data.map((p: { likeCount: number }) => p.likeCount);
    expect(likes.every((n: number) => n >= 1000)).toBe(true);
    expect(likes).toEqual([...likes].sort((a: number, b: number) => b - a));
    const since = '2026-07-01';
    const recent = await search({ since, lang: 'en', limit: 20 });
    expect(recent.body.data.every((p: { createdAt: string; lang: string }) => p.createdAt >= `${since}T00:00:00.000Z` && p.lang === 'en')).toBe(true);
    const verified = await search({ verifiedOnly: true, limit: 20 });
    expect(verified.body.data.every((p: { author: { verified: boolean } }) => p.author.verified)).toBe(true);
  });

  it('a quoted phrase is searched as one phrase; a leading minus leaves a word out', async () => {
    const all = await search({ query: 'api', limit: 100 });
    const texts: string[] = all.body.data.map((p: { text: string }) => p.text.toLowerCase());
    const pair = texts.flatMap((t) => [...t.matchAll(/\b([a-z]{3,}) ([a-z]{3,})\b/g)].map((m) => `${m[1]} ${m[2]}`)).find((p) => p.includes('api'));
    expect(pair).toBeDefined();
    const phrase = await search({ query: `"${pair}"`, limit: 100 });
    expect(phrase.body.data.length).toBeGreaterThan(0);
    expect(phrase.body.data.every((p: { text: string }) => p.text.toLowerCase().includes(pair!))).toBe(true);
    const other = pair!.split(' ').find((w) => w !== 'api')!;
    const without = await search({ query: `api -${other}`, limit: 100 });
    expect(without.body.data.length).toBeGreaterThan(0);
    expect(without.body.data.every((p: { text: string }) => !p.text.toLowerCase().includes(other))).toBe(true);
  });

  it('no injection: operators typed in free text are searched as words', async () => {
    const res = await search({ query: `from:${SIM_ACCOUNTS.org}` });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
  });

  it('pages with a body cursor bound to the filters', async () => {
    const first = await search({ query: 'api', limit: 5 });
    expect(first.body.data).toHaveLength(5);
    const second = await search({ query: 'api', limit: 5, cursor: first.body.meta.nextCursor });
    expect(second.status).toBe(200);
    expect(second.body.data[0].id).not.toBe(first.body.data[0].id);
    expectError(await search({ query: 'api', limit: 5, sort: 'top', cursor: first.body.meta.nextCursor }), 400, 'invalid_cursor');
  });

  it('400 for invalid filters, naming the field', async () => {
    expectError(await search({}), 400, 'invalid_request', { field: 'query' });
    expectError(await search({ from: ['bad name'] }), 400, 'invalid_request');
    expectError(await search({ lang: 'english' }), 400, 'invalid_request', { field: 'lang' });
    expectError(await search({ since: '2026-13-40' }), 400, 'invalid_request', { field: 'since' });
    expectError(await search({ query: 'x', until: '2026-02-30' }), 400, 'invalid_request', { field: 'until' });
    expectError(await search({ query: 'x', minLikes: -1 }), 400, 'invalid_request', { field: 'minLikes' });
    expectError(await search({ query: 'x', sort: 'oldest' }), 400, 'invalid_request', { field: 'sort' });
    expectError(await search({ query: 'x', replies: 'maybe' }), 400, 'invalid_request', { field: 'replies' });
    expectError(await search({ query: 'x', unknown: 1 }), 400, 'invalid_request', { field: 'unknown' });
    expectError(await search({ query: 'x'.repeat(501) }), 400, 'invalid_request', { field: 'query' });
  });

  it('the same results over MCP', async () => {
    const rest = await search({ query: 'new API', from: [SIM_ACCOUNTS.blue] });
    const mcp = await connectMcp(svc.url, key);
    try {
      const result = await mcp.callTool({ name: 'search_microblog_posts', arguments: { query: 'new API', from: [SIM_ACCOUNTS.blue] } });
      expect(toolEnvelope(result).data).toEqual(rest.body.data);
    } finally {
      await mcp.close();
    }
  });

  it("400 naming the query when the platform refuses it as the client's error, charged nothing", async () => {
    const refusal = JSON.parse(readFileSync(new URL('../fixtures/upstream/microblog-x/SearchTimeline-error-query-too-long.json', import.meta.url), 'utf8'));
    microblogOf(svc).sim.faults.add({ route: '/\\/SearchTimeline$/', kind: 'answer', body: refusal, count: 10 });
    const res = await search({ query: 'api' });
    expectError(res, 400, 'invalid_request', { field: 'query', platform: 'microblog' });
    expect(res.body.error.retryable).toBe(false);
    expect(res.body.error.message).toContain('exceeds max allowed 512');
  });

  it('503 when the platform times out, charged nothing', async () => {
    microblogOf(svc).sim.faults.add({ route: '/\\/SearchTimeline$/', kind: 'status', status: 502, count: 10 });
    expectError(await search({ query: 'api' }), 503, 'upstream_unavailable');
  });
});
