import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRng } from '../../../adapters/sim/rng.ts';
import { ForumWorld } from '../../../adapters/sim/forum/forum-world.ts';
import { startForumSim, type ForumSim } from '../../../adapters/sim/forum/forum-sim.ts';
import { createForumClient, type ForumClient } from '../../../adapters/forum/forum-client.ts';
import { createForumLoaders } from '../../../adapters/forum/forum-loaders.ts';

describe('seeded generation', () => {
  it('rng is deterministic per seed and within bounds', () => {
    const a = createRng(9);
    const b = createRng(9);
    const seqA = Array.from({ length: 5 }, () => a.int(1, 6));
    expect(Array.from({ length: 5 }, () => b.int(1, 6))).toEqual(seqA);
    expect(seqA.every((n) => n >= 1 && n <= 6)).toBe(true);
    expect(Array.from({ length: 5 }, () => createRng(10).next())).not.toEqual(Array.from({ length: 5 }, () => createRng(9).next()));
  });

  it('the same seed builds the same world, trees included', () => {
    const one = new ForumWorld({ seed: 5 });
    const two = new ForumWorld({ seed: 5 });
    expect(two.allPosts().slice(0, 50)).toEqual(one.allPosts().slice(0, 50));
    const post = one.post(one.landmarks.posts.bigThread)!;
    expect([...two.tree(two.post(post.id)!).byId.values()]).toEqual([...one.tree(post).byId.values()]);
  });

  it('the large world has at least 100k posts with comment trees and builds fast', () => {
    const world = new ForumWorld({ seed: 1, size: 'large' });
    expect(world.allPosts().length).toBeGreaterThanOrEqual(100_000);
    expect(world.allSubforums().length).toBeGreaterThan(3_000);
    const sample = world.allPosts().slice(50_000, 50_500);
    const comments = sample.reduce((n, p) => n + world.tree(p).byId.size, 0);
    expect(comments).toBeGreaterThan(2_000);
  });

  it('contains every case', () => {
    const world = new ForumWorld({ seed: 2 });
    const lm = world.landmarks;
    const post = (id: string) => world.post(id)!;
    expect(post(lm.posts.deletedByAuthor).removedByCategory).toBe('deleted');
    expect(post(lm.posts.removedByModerator).removedByCategory).toBe('moderator');
    expect(post(lm.posts.nsfw).over18).toBe(true);
    expect(post(lm.posts.crosspost).crosspostParent).toBe(lm.posts.crosspostOriginal);
    expect(post(lm.posts.edited).edited).not.toBeNull();
    expect(post(lm.posts.stickiedLocked)).toMatchObject({ stickied: true, locked: true, distinguished: 'moderator' });
    expect(post(lm.posts.archived).archived).toBe(true);
    expect([post(lm.posts.poll).kind, post(lm.posts.gallery).kind, post(lm.posts.video).kind]).toEqual(['poll', 'gallery', 'video']);
    expect(world.comment(lm.comments.deleted)?.body).toBe('[deleted]');
    expect(world.comment(lm.comments.removed)?.body).toBe('[removed]');
    expect(world.comment(lm.comments.stickiedModerator)).toMatchObject({ stickied: true, distinguished: 'moderator' });
    expect(world.comment(lm.comments.reply)?.parentId).toBe(`t1_${lm.comments.edited}`);
    expect(world.subforum(lm.subforums.quarantined)?.quarantine).toBe(true);
    expect(world.subforum(lm.subforums.private)?.type).toBe('private');
    expect(world.subforum(lm.subforums.banned)?.banned).toBe(true);
    expect(world.subforum(lm.subforums.restricted)?.type).toBe('restricted');
    expect(world.subforum(lm.subforums.nsfw)?.over18).toBe(true);
  });
});

describe('content control over HTTP, seen by the real client', () => {
  let sim: ForumSim;
  let client: ForumClient;

  beforeAll(async () => {
    sim = await startForumSim({ seed: 11 });
    client = createForumClient({ baseUrl: sim.url });
  });

  afterAll(async () => {
    await client.close();
    await sim.close();
  });

  const control = (method: string, path: string, body?: unknown) =>
    fetch(`${sim.url}/__sim/forum${path}`, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });

  it('adds, edits and deletes a post at given times', async () => {
    const res = await control('POST', '/posts', { subforum: 'programming', title: 'zephyr announcement', selftext: 'hello', at: 1_800_000_000 });
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: string };
    const fresh = await createForumLoaders(client).post.load(id);
    expect(fresh).toMatchObject({ title: 'zephyr announcement', createdUtc: 1_800_000_000, edited: null });
    const newest = await client.listSubforumPosts('programming', { sort: 'new', limit: 1 });
    expect(newest.items[0].id).toBe(id);
    await control('PATCH', `/posts/${id}`, { selftext: 'hello again', at: 1_800_000_500 });
    expect(await createForumLoaders(client).post.load(id)).toMatchObject({ selftext: 'hello again', edited: 1_800_000_500 });
    await control('DELETE', `/posts/${id}?as=author`);
    expect(await createForumLoaders(client).post.load(id)).toMatchObject({ author: '[deleted]', removedByCategory: 'deleted' });
  });

  it('adds a reply, edits and removes it; the tree shows each state', async () => {
    const postId = sim.world.landmarks.posts.commentCases;
    const res = await control('POST', '/comments', { postId, parentId: sim.world.landmarks.comments.reply, body: 'late reply', at: 1_800_001_000 });
    const { id } = (await res.json()) as { id: string };
    const loaders = createForumLoaders(client);
    expect(await loaders.comment.load(id)).toMatchObject({ body: 'late reply', parentId: `t1_${sim.world.landmarks.comments.reply}`, numComments: 9 });
    await control('PATCH', `/comments/${id}`, { body: 'late reply (edited)', at: 1_800_001_100 });
    await control('DELETE', `/comments/${id}?as=moderator`);
    const tree = await client.getCommentTree(postId);
    const mine = tree.entries.find((e) => e.kind === 'comment' && e.comment.id === id);
    expect(mine).toMatchObject({ comment: { body: '[removed]', author: '[deleted]', edited: 1_800_001_100 } });
  });

  it('changes a community to private; reads then fail as not public', async () => {
    await control('POST', '/subforums', { name: 'brandnew' });
    expect((await client.getSubforumAbout('brandnew')).subforumType).toBe('public');
    await control('PATCH', '/subforums/brandnew', { type: 'private' });
    await expect(client.getSubforumAbout('brandnew')).rejects.toMatchObject({ kind: 'not_public', reason: 'private' });
  });

  it('rejects a control call missing required fields', async () => {
    expect((await control('POST', '/posts', { subforum: 'programming' })).status).toBe(400);
  });
});
