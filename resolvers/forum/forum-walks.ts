import type { GraphQLResolveInfo } from 'graphql';
import { subforumNotPublicReason } from '../../adapters/forum/forum-error-classifier.ts';
import type { ForumComment, ForumPost, Subforum } from '../../adapters/shapes/forum-shapes.ts';
import type { Page } from '../../core/page.ts';
import type { RequestContext } from '../../core/request-context.ts';
import { forumLoaders } from './forum-context.ts';
import { getForumPostComments, type PostCommentsArgs } from './forum-post-comments.ts';
import { searchSubforumPosts, type PostSearchArgs } from './search-forum-posts.ts';

/**
 * Fields a GraphQL query walks across on the forum. Posts, comments and communities go through the per-request
 * loaders (`/api/info`, 100 per round trip), so a page of comments costs one round trip for all their posts;
 * pages reuse the root operations' resolvers with the parent's id or name. The schema bills what they return.
 */

/** The post's community; null when the platform does not return it or it is not publicly readable. */
export async function postCommunity(post: ForumPost, ctx: RequestContext): Promise<Subforum | null> {
  const community = await forumLoaders(ctx).subforum.load(post.subforum);
  return community && !subforumNotPublicReason(community) ? community : null;
}

export function postComments(post: ForumPost, args: Omit<PostCommentsArgs, 'id'>, ctx: RequestContext, info: GraphQLResolveInfo): Promise<Page<ForumComment>> {
  return getForumPostComments({ ...args, id: post.id }, ctx, info);
}

export function commentPost(comment: ForumComment, ctx: RequestContext): Promise<ForumPost | null> {
  return forumLoaders(ctx).post.load(comment.postId);
}

/** The comment replied to; null for a top-level comment, whose parent is the post (`t3_`). */
export async function commentParent(comment: ForumComment, ctx: RequestContext): Promise<ForumComment | null> {
  return comment.parentId.startsWith('t1_') ? forumLoaders(ctx).comment.load(comment.parentId.slice(3)) : null;
}

export function communityPosts(community: Subforum, args: PostSearchArgs, ctx: RequestContext, info: GraphQLResolveInfo) {
  return searchSubforumPosts({ ...args, name: community.name }, ctx, info);
}
