import type { GraphQLResolveInfo } from 'graphql';
import type { CommentSort } from '../../adapters/forum/forum-client.ts';
import type { ForumComment } from '../../adapters/shapes/forum-shapes.ts';
import type { Page } from '../../core/page.ts';
import type { RequestContext } from '../../core/request-context.ts';
import { cursorPage } from '../paging.ts';
import { forumClient } from './forum-context.ts';
import { firstCommentPage, nextCommentPage, type CommentPagerState } from './comment-tree-pager.ts';

export interface PostCommentsArgs {
  id: string;
  sort: CommentSort;
  depth: number;
  limit: number;
  cursor?: string;
}

export function getForumPostComments(args: PostCommentsArgs, ctx: RequestContext, info: GraphQLResolveInfo): Promise<Page<ForumComment>> {
  const postId = args.id.toLowerCase();
  const params = { sort: args.sort, depth: args.depth, limit: args.limit };
  const client = forumClient(ctx);
  return cursorPage<ForumComment, CommentPagerState>(ctx, info, args, async (state) => {
    const page = state ? await nextCommentPage(client, postId, params, state) : await firstCommentPage(client, postId, params);
    return { items: page.comments, next: page.next };
  });
}
