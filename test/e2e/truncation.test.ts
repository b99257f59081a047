import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SIM_ACCOUNTS, SIM_LISTS } from '../../adapters/sim/microblog/microblog-world-generator.ts';
import { startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
let key: string;
const world = () => svc.service.platforms.sims.microblog!.world;
const forumWorld = () => svc.service.platforms.sims.forum!.world;

beforeAll(async () => {
  // Walks of many short pages: a window that never refuses them.
  svc = await startTestService({ tiers: { free: { rateLimitPerMinute: 100_000 } } });
  ({ key } = await svc.newKey());
});
afterAll(async () => {
  await svc?.close();
});
afterEach(() => {
  world().paging = {};
  forumWorld().paging = {};
});

/** Walks a forum post search to its end (at most 20 pages); every page's size and meta. */
async function searchWalk(body: Record<string, unknown>): Promise<{ sizes: number[]; metas: Record<string, unknown>[] }> {
  const sizes: number[] = [];
  const metas: Record<string, unknown>[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 20; page++) {
    const res: { status: number; body: any } = await svc.request('POST', '/v1/forum/search', { key, body: { ...body, ...(cursor ? { cursor } : {}) } });
    expect(res.status).toBe(200);
    sizes.push(res.body.data.length);
    metas.push(res.body.meta);
    cursor = res.body.meta.nextCursor;
    if (cursor === null) return { sizes, metas };
  }
  throw new Error('walk did not end');
}

/** Walks a paginated REST path to its end (at most 20 pages); every page's meta. */
async function walk(path: string): Promise<{ items: number; metas: Record<string, unknown>[] }> {
  const metas: Record<string, unknown>[] = [];
  let items = 0;
  let cursor: string | null = null;
  for (let page = 0; page < 20; page++) {
    const res: { status: number; body: any } = await svc.request('GET', `${path}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key });
    expect(res.status).toBe(200);
    items += res.body.data.length;
    metas.push(res.body.meta);
    cursor = res.body.meta.nextCursor;
    if (cursor === null) return { items, metas };
  }
  throw new Error('walk did not end');
}

const memberCount = () => world().lists.get(SIM_LISTS.public)!.memberIds.length;
const MEMBERS = `/v1/microblog/lists/${SIM_LISTS.public}/members?limit=3`;

describe('meta.truncated: the platform capped or stalled a walk', () => {
  it('the control API caps and stalls the simulated platform (it stays independent of the service)', async () => {
    const res = await fetch(`${svc.service.platforms.simulated.microblog}/__sim/microblog/paging`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ capAt: 4, stallAt: 9 }),
    });
    expect(await res.json()).toEqual({ capAt: 4, stallAt: 9 });
  });

  it('a walk that ends normally carries no truncated member', async () => {
    const { items, metas } = await walk(MEMBERS);
    expect(items).toBe(memberCount());
    expect(metas.every((meta) => !('truncated' in meta))).toBe(true);
  });

  it('List members capped by the platform: the last page says platform_cap, with what came and what the List counts', async () => {
    expect(memberCount()).toBeGreaterThan(5);
    world().paging = { capAt: 5 };
    const { items, metas } = await walk(MEMBERS);
    expect(items).toBe(5);
    expect(metas.slice(0, -1).every((meta) => !('truncated' in meta))).toBe(true);
    expect(metas.at(-1)).toMatchObject({ nextCursor: null, truncated: { reason: 'platform_cap', seen: 5, expected: memberCount() } });
  });

  it('a platform that answers a page with the cursor it was asked with: platform_stalled, and the walk ends there', async () => {
    world().paging = { stallAt: 3 };
    const { items, metas } = await walk(MEMBERS);
    expect(items).toBe(6);
    expect(metas).toHaveLength(2);
    expect(metas[1]).toMatchObject({ nextCursor: null, truncated: { reason: 'platform_stalled', seen: 6, expected: memberCount() } });
  });

  it('followers capped: platform_cap against the profile followers count; GraphQL carries it in the page', async () => {
    world().paging = { capAt: 2 };
    const profile = await svc.request('GET', `/v1/microblog/users/${SIM_ACCOUNTS.blue}`, { key });
    const followers = profile.body.data.followersCount as number;
    expect(followers).toBeGreaterThan(2);
    const { items, metas } = await walk(`/v1/microblog/users/${SIM_ACCOUNTS.blue}/followers?`);
    expect(items).toBe(2);
    expect(metas.at(-1)).toMatchObject({ truncated: { reason: 'platform_cap', seen: 2, expected: followers } });
    const gql = await svc.graphql(
      `query($c: String) { microblogUserFollowers(user: "${SIM_ACCOUNTS.blue}", cursor: $c) { nextCursor truncated { reason seen expected } } }`,
      { c: (await svc.request('GET', `/v1/microblog/users/${SIM_ACCOUNTS.blue}/followers`, { key })).body.meta.nextCursor },
      key,
    );
    expect(gql.body.data.microblogUserFollowers).toEqual({ nextCursor: null, truncated: { reason: 'platform_cap', seen: 2, expected: followers } });
  });

  it('forum search: a walk that reaches the platform’s search depth (250) says platform_cap', async () => {
    const { sizes, metas } = await searchWalk({ query: 'e', limit: 100, includeNsfw: true });
    expect(sizes).toEqual([100, 100, 50]);
    expect(metas.slice(0, -1).every((meta) => !('truncated' in meta))).toBe(true);
    expect(metas.at(-1)).toMatchObject({ nextCursor: null, truncated: { reason: 'platform_cap', seen: 250, expected: null } });
  });

  it('forum search: a page answered with the `after` it was asked with says platform_stalled', async () => {
    forumWorld().paging = { stallAt: 5 };
    const { sizes, metas } = await searchWalk({ query: 'e', limit: 5, includeNsfw: true });
    expect(sizes).toEqual([5, 5]);
    expect(metas[1]).toMatchObject({ nextCursor: null, truncated: { reason: 'platform_stalled', seen: 10 } });
  });

  it('is documented in /openapi.json on paginated operations', async () => {
    const doc = (await svc.request('GET', '/openapi.json')).body;
    const meta = doc.paths['/v1/microblog/lists/{id}/members'].get.responses['200'].content['application/json'].schema.properties.meta;
    expect(meta.properties.truncated.$ref ?? meta.properties.truncated.type).toBeDefined();
    expect(doc.components.schemas.PageTruncation.properties.reason.enum).toEqual(['platform_cap', 'platform_stalled']);
  });
});
