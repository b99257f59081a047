import type { MicroblogPost } from '../shapes/microblog-shapes.ts';
import { UpstreamError } from '../upstream/upstream-error.ts';

/** One conversation page of a post (TweetDetail), read once and cut into its thread or its replies. */
export interface Conversation {
  focal: MicroblogPost | null;
  entries: Array<{ post: MicroblogPost; moduleId: string | null; position: 'above' | 'focal' | 'below'; promoted: boolean }>;
  next: string | null;
}

/** Replies under the post (replies to replies included); the post, posts above it and promoted posts left out. */
export function repliesOf(postId: string, conversation: Conversation): { items: MicroblogPost[]; next: string | null } {
  const items = conversation.entries.filter((e) => e.position === 'below' && !e.promoted && e.post.id !== postId).map((e) => e.post);
  return { items, next: conversation.next };
}

/** The author's own thread containing the post, first post first, from the first conversation page. */
export function threadOf(postId: string, conversation: Conversation): MicroblogPost[] {
  const focal = conversation.focal;
  if (!focal) throw new UpstreamError('not_found', 'microblog', `post ${postId} not found`);
  const authorId = focal.author.id;
  const above = conversation.entries.filter((e) => e.position === 'above').map((e) => e.post);
  const chain: MicroblogPost[] = [focal];
  // Walk up: the contiguous run of the author's own posts the focal post continues from.
  for (let i = above.length - 1; i >= 0; i--) {
    const post = above[i];
    if (post.author.id !== authorId || chain[0].inReplyToId !== post.id) break;
    chain.unshift(post);
  }
  // Walk down: self-replies that continue the last post of the chain, module by module.
  const below = conversation.entries.filter((e) => e.position === 'below' && !e.promoted);
  let extended = true;
  while (extended) {
    extended = false;
    const last = chain[chain.length - 1];
    const next = below.find((e) => e.post.author.id === authorId && e.post.inReplyToId === last.id);
    if (next && !chain.some((p) => p.id === next.post.id)) {
      chain.push(next.post);
      extended = true;
    }
  }
  return chain;
}
