import type { ForumClient } from '../../adapters/forum/forum-client.ts';
import { createForumLoaders, type ForumLoaders } from '../../adapters/forum/forum-loaders.ts';
import { memoised, type RequestContext } from '../../core/request-context.ts';
import { onceEach } from '../once-per-request.ts';
import { notingAnswers } from '../upstream-answers.ts';

/** The platform's client for this request: identical reads within the request run once, and answers are noted for provenance. */
export function forumClient(ctx: RequestContext): ForumClient {
  return memoised(ctx, 'forum-client', () => notingAnswers(ctx, 'forum', onceEach(ctx.deps.platforms.forum)));
}

/** One loader set per request, so every forum field of a GraphQL document shares its batches. */
export function forumLoaders(ctx: RequestContext): ForumLoaders {
  return memoised(ctx, 'forum-loaders', () => createForumLoaders(forumClient(ctx)));
}
