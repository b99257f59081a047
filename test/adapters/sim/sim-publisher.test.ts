import { describe, expect, it } from 'vitest';
import { ForumWorld } from '../../../adapters/sim/forum/forum-world.ts';
import { generateMicroblogWorld } from '../../../adapters/sim/microblog/microblog-world-generator.ts';
import { createSimPublisher } from '../../../adapters/sim/sim-publisher.ts';

function worlds() {
  return { forum: new ForumWorld({ seed: 1, size: 'small' }), microblog: generateMicroblogWorld(1, 'small') };
}

describe('the simulated platforms’ live publisher', () => {
  it('publishes the same content from the same seed', () => {
    const a = worlds();
    const b = worlds();
    createSimPublisher(a.forum, a.microblog, 7).step(300);
    createSimPublisher(b.forum, b.microblog, 7).step(300);
    expect(a.forum.allPosts().map((p) => [p.id, p.title, p.crosspostParent])).toEqual(b.forum.allPosts().map((p) => [p.id, p.title, p.crosspostParent]));
    expect(a.microblog.timeline.length).toBe(b.microblog.timeline.length);
  });

  it('adds posts, comments, edits, crossposts and reposts on common topics', () => {
    const { forum, microblog } = worlds();
    const postsBefore = forum.allPosts().length;
    const timelineBefore = microblog.timeline.length;
    createSimPublisher(forum, microblog, 7).step(400);
    const added = forum.allPosts().slice(postsBefore);
    expect(added.length).toBeGreaterThan(100);
    expect(added.some((post) => post.crosspostParent !== null)).toBe(true);
    expect(added.some((post) => post.edited !== null)).toBe(true);
    expect(added.some((post) => /\brust\b/.test(post.title))).toBe(true);
    expect(added.some((post) => post.addedComments > 0)).toBe(true);
    expect(microblog.timeline.length).toBeGreaterThan(timelineBefore);
  });
});
