import type { ForumClient } from '../../adapters/forum/forum-client.ts';
import { createForumLoaders, type ForumLoaders } from '../../adapters/forum/forum-loaders.ts';
import { memoised, type RequestContext } from '../../core/request-context.ts';

export function forumClient(ctx: RequestContext): ForumClient {
  return ctx.deps.platforms.forum;
}

/** One loader set per request, so every forum field of a GraphQL document shares its batches. */
export function forumLoaders(ctx: RequestContext): ForumLoaders {
  return memoised(ctx, 'forum-loaders', () => createForumLoaders(forumClient(ctx)));
}
