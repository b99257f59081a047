import type { GraphQLResolveInfo } from 'graphql';
import type { ForumPost } from '../../adapters/shapes/forum-shapes.ts';
import { ServiceError } from '../../schema/error-catalogue.ts';
import type { RequestContext } from '../../schema/pipeline/request-context.ts';
import { forumLoaders } from './forum-context.ts';

/** The platform answers `/api/info` without the posts it will not show, so absent means not found. */
export async function getForumPost(args: { id: string }, ctx: RequestContext, info: GraphQLResolveInfo): Promise<ForumPost> {
  const post = await forumLoaders(ctx).post.load(args.id.toLowerCase());
  if (!post) throw new ServiceError('not_found', { message: `Post t3_${args.id} does not exist or is not public.`, details: { resource: 'forum_post', id: args.id } });
  ctx.meter.add(info, 'forum_post', 1);
  return post;
}
