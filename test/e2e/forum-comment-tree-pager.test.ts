import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startForumSim, type ForumSim } from '../../adapters/sim/forum/forum-sim.ts';
import { createForumClient, type ForumClient } from '../../adapters/forum/forum-client.ts';
import { firstCommentPage, nextCommentPage, type CommentPageParams } from '../../resolvers/forum/comment-tree-pager.ts';

let sim: ForumSim;
let client: ForumClient;

beforeAll(async () => {
  sim = await startForumSim({ seed: 42 });
  client = createForumClient({ baseUrl: sim.url });
});

afterAll(async () => {
  await client.close();
  await sim.close();
});

async function walk(postId: string, params: CommentPageParams): Promise<{ ids: string[]; pages: number; maxState: number }> {
  const ids: string[] = [];
  let page = await firstCommentPage(client, postId, params);
  let pages = 1;
  let maxState = 0;
  const seen = new Set<string>();
  for (;;) {
    expect(page.comments.length).toBeLessThanOrEqual(params.limit);
    for (const c of page.comments) {
      expect(seen.has(c.id)).toBe(false);
      // Parents first: a reply's parent has been returned already.
      if (c.parentId.startsWith('t1_')) expect(seen.has(c.parentId.slice(3))).toBe(true);
      else expect(c.parentId).toBe(`t3_${postId}`);
      seen.add(c.id);
      ids.push(c.id);
    }
    if (!page.next) return { ids, pages, maxState };
    maxState = Math.max(maxState, JSON.stringify(page.next).length);
    page = await nextCommentPage(client, postId, params, page.next);
    pages++;
  }
}

function expectedCount(postId: string, depth: number): number {
  const world = sim.world;
  return [...world.tree(world.post(postId)!).byId.values()].filter((c) => c.depth < depth).length;
}

describe('comment tree pager', () => {
  it('walks a 600-comment tree through its more stubs, every comment once, parents first', async () => {
    const postId = sim.world.landmarks.posts.bigThread;
    const result = await walk(postId, { sort: 'confidence', depth: 10, limit: 37 });
    expect(result.ids).toHaveLength(expectedCount(postId, 10));
    expect(result.pages).toBe(Math.ceil(600 / 37));
    expect(result.maxState).toBeLessThan(2500);
  });

  it('respects depth and sort', async () => {
    const postId = sim.world.landmarks.posts.bigThread;
    const result = await walk(postId, { sort: 'new', depth: 2, limit: 100 });
    expect(result.ids).toHaveLength(expectedCount(postId, 2));
  });

  it('falls back to re-read markers when the queue does not fit, still exact', async () => {
    const postId = sim.world.landmarks.posts.bigThread;
    const result = await walk(postId, { sort: 'confidence', depth: 10, limit: 50, stateBudget: 60 });
    expect(result.ids).toHaveLength(600);
  });

  it('a deep chain stops at the requested depth', async () => {
    const postId = sim.world.landmarks.posts.deepThread;
    const result = await walk(postId, { sort: 'confidence', depth: 4, limit: 100 });
    expect(result.ids).toHaveLength(4);
  });
});
