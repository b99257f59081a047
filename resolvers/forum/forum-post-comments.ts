import type { GraphQLResolveInfo } from 'graphql';
import type { CommentSort } from '../../adapters/forum/forum-client.ts';
import type { RequestContext } from '../../schema/pipeline/request-context.ts';
import { cursorState, readCursor, resolveCursorState, signCursor } from '../../schema/pipeline/cursor.ts';
import type { ForumCommentPage } from '../../schema/types/forum-resources.ts';
import { forumClient } from './forum-context.ts';
import { firstCommentPage, nextCommentPage, type CommentPagerState } from './comment-tree-pager.ts';

export interface PostCommentsArgs {
  id: string;
  sort: CommentSort;
  depth: number;
  limit: number;
  cursor?: string;
}

const OPERATION = 'getForumPostComments';

export async function getForumPostComments(args: PostCommentsArgs, ctx: RequestContext, info: GraphQLResolveInfo): Promise<ForumCommentPage> {
  const postId = args.id.toLowerCase();
  const params = { sort: args.sort, depth: args.depth, limit: args.limit };
  const state = await resolveCursorState(ctx, readCursor<CommentPagerState>(ctx, OPERATION, { ...args }));
  const client = forumClient(ctx);
  const page = state ? await nextCommentPage(client, postId, params, state) : await firstCommentPage(client, postId, params);
  ctx.meter.add(info, 'forum_comment', page.comments.length);
  return { items: page.comments, nextCursor: page.next ? signCursor(ctx, OPERATION, { ...args }, await cursorState(ctx, page.next)) : null };
}
