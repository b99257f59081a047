import { describe, expect, it } from 'vitest';
import { planReads } from '../../../adapters/monitors/monitor-fetch.ts';

const comment = (id: string, createdUtc: number, depth = 0) => ({
  kind: 'comment',
  depth,
  comment: { id, body: id, author: 'a', subforum: 's', permalink: `/c/${id}`, createdAt: new Date(createdUtc * 1000).toISOString(), createdUtc },
});

describe("a thread monitor's read, cut at the items its hold counted", () => {
  it('keeps the newest comments whatever thread they sit in: a new reply deep in an older thread is not cut off by the older replies of the newest thread', async () => {
    // The platform's tree order: the newest top-level comment with 520 older replies, then an older one with a new reply.
    const entries = [comment('t1', 100), ...Array.from({ length: 520 }, (_, i) => comment(`r${i}`, 101 + i, 1)), comment('t2', 50), comment('newest', 10_000, 1)];
    const forum = { getCommentTree: async () => ({ post: {}, entries }) };
    const [read] = planReads({ kind: 'forum_thread', post: 'abc' } as never, ['forum'] as never, { forum, microblog: {} } as never);
    const outcome = await read!.run();
    const ids = outcome.candidates.map((candidate) => candidate.result.externalId);
    expect(ids).toHaveLength(500);
    expect(ids[0]).toBe('newest');
    // The 500 newest: the new reply, then the replies r519 down to r21; t1, t2 and the 21 oldest replies are cut.
    expect(ids).toContain('r21');
    expect(ids).not.toContain('r20');
    expect(ids).not.toContain('t1');
    expect(outcome.credits).toBe(1 + 500 * 3);
  });
});
