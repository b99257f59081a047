import type { ForumPost } from '../../adapters/shapes/forum-shapes.ts';
import type { RequestContext } from '../../core/request-context.ts';
import { forumClient, forumLoaders } from './forum-context.ts';

/**
 * `/api/info` (batched) answers with the post, or silently without it. Only then is the post's own page
 * asked, because that answer says why: 404 (gone) or 403/404 with the community's reason (private, …),
 * which the client raises as not_found / not_public.
 */
export async function getForumPost(args: { id: string }, ctx: RequestContext): Promise<ForumPost> {
  const id = args.id.toLowerCase();
  return (await forumLoaders(ctx).post.load(id)) ?? (await forumClient(ctx).getCommentTree(id, { limit: 1, depth: 1 })).post;
}
