import { describe, expect, it } from 'vitest';
import { mapArticle } from '../../../adapters/microblog/microblog-article-mapper.ts';
import { encodeArticle, encodeTweetResult } from '../../../adapters/sim/microblog/microblog-wire-encoder.ts';
import { generateMicroblogWorld, SIM_ACCOUNTS } from '../../../adapters/sim/microblog/microblog-world-generator.ts';

describe('simulated microblog world', () => {
  it('is deterministic for a seed and differs across seeds', () => {
    const a = generateMicroblogWorld(11);
    const b = generateMicroblogWorld(11);
    const c = generateMicroblogWorld(12);
    expect([...a.posts.keys()]).toEqual([...b.posts.keys()]);
    expect([...a.posts.values()].map((p) => p.text)).toEqual([...b.posts.values()].map((p) => p.text));
    expect([...a.posts.values()].map((p) => p.text)).not.toEqual([...c.posts.values()].map((p) => p.text));
  });

  it('contains every case: protected, suspended, quotes, reposts, long posts, each media type, edits, deletions, lists, spaces, affiliates, highlights', () => {
    const w = generateMicroblogWorld(5);
    const posts = [...w.posts.values()];
    expect(w.userByName(SIM_ACCOUNTS.protected)!.protected).toBe(true);
    expect(w.userByName(SIM_ACCOUNTS.suspended)!.suspended).toBe(true);
    expect(posts.some((p) => p.quotedId)).toBe(true);
    expect(posts.some((p) => p.repostOfId)).toBe(true);
    expect(posts.some((p) => Array.from(p.text).length > 280)).toBe(true);
    for (const type of ['photo', 'video', 'animated_gif']) expect(posts.some((p) => p.media.some((m) => m.type === type))).toBe(true);
    expect(posts.some((p) => p.media.some((m) => m.streamOnly))).toBe(true);
    expect(posts.some((p) => p.editIds.length > 1)).toBe(true);
    expect(posts.some((p) => p.deleted)).toBe(true);
    expect(posts.some((p) => p.articleId)).toBe(true);
    expect(posts.some((p) => p.spaceId)).toBe(true);
    expect([...w.lists.values()].map((l) => l.private)).toEqual([false, true]);
    expect(new Set([...w.spaces.values()].map((s) => s.state))).toEqual(new Set(['Running', 'Ended', 'NotStarted', 'Canceled']));
    const org = w.userByName(SIM_ACCOUNTS.org)!;
    expect(org.verifiedType).toBe('Business');
    expect([...w.users.values()].filter((u) => u.affiliateOf === org.id).length).toBeGreaterThan(20);
    expect(org.highlightedPostIds.length).toBeGreaterThan(0);
    expect(new Set([...w.users.values()].map((u) => u.shape))).toEqual(new Set(['2026', 'transitional', 'legacy']));
  });

  it('has a follower graph without duplicate or self edges', () => {
    const world = generateMicroblogWorld(1, 'small');
    for (const [userId, followers] of world.followers) {
      expect(new Set(followers).size, `followers of ${userId}`).toBe(followers.length);
      expect(followers).not.toContain(userId);
    }
    for (const [userId, following] of world.following) expect(new Set(following).size, `following of ${userId}`).toBe(following.length);
  });

  it('large world: at least 100k posts and a follower graph', () => {
    const w = generateMicroblogWorld(1, 'large');
    let edges = 0;
    for (const f of w.followers.values()) edges += f.length;
    expect(w.posts.size).toBeGreaterThanOrEqual(100_000);
    expect(edges).toBeGreaterThan(100_000);
  });

  it('world methods: add, edit, repost and delete at a given time', () => {
    const w = generateMicroblogWorld(2);
    const bob = w.userByName(SIM_ACCOUNTS.plain)!;
    const alice = w.userByName(SIM_ACCOUNTS.blue)!;
    const at = Date.UTC(2026, 7, 2);
    const post = w.addPost({ authorId: bob.id, text: 'hello', at });
    expect(post.createdAt).toBe(at);
    const edited = w.editPost(post.id, 'hello again', at + 10);
    expect(w.posts.get(post.id)!.editIds).toEqual([post.id, edited.id]);
    expect(w.isVisible(post)).toBe(false);
    expect(w.isVisible(edited)).toBe(true);
    const repost = w.repost(alice.id, edited.id, at + 20);
    expect(w.repostCount(edited)).toBe(1);
    expect(repost.repostOfId).toBe(edited.id);
    w.deletePost(edited.id);
    expect(w.isVisible(edited)).toBe(false);
    expect(w.posts.get(post.id)!.deleted).toBe(true);
  });

  it('renders the showcase Article body as plain text', () => {
    const w = generateMicroblogWorld(1);
    const post = [...w.posts.values()].find((p) => p.articleId && !p.repostOfId)!;
    // Through JSON, as the client receives what the simulator writes.
    const tweet = JSON.parse(JSON.stringify(encodeTweetResult(w, post, { fullArticle: true })));
    const article = mapArticle(JSON.parse(JSON.stringify(encodeArticle(w.articles.get(post.articleId!)!, true))), tweet, true);
    const embedded = article.blocks!.flatMap((b) => b.entities).find((e) => e.type === 'POST')!.postId;
    expect(article.text).toBe(
      [
        'Building on the Sim API',
        '🚀 Bold start, italic middle and struck end.',
        'Read the guide or visit example.org/docs for more.',
        'Setup',
        '1. Create a key\n  1. Scopes: read only\n2. Call the API\n• Fast\n  • Nested detail',
        'Quote and code',
        'Ship small, ship often.',
        'const client = createClient();\nawait client.search("cats");',
        'curl https://api.example.com',
        `https://x.com/i/status/${embedded}`,
        'Thanks for reading & see you soon <3',
      ].join('\n\n'),
    );
  });
});
