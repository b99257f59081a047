import type { MicroblogClient } from '../../adapters/microblog/microblog-client.ts';
import { createMicroblogLoaders, type MicroblogLoaders } from '../../adapters/microblog/microblog-loaders.ts';
import { memoised, type RequestContext } from '../../core/request-context.ts';
import { onceEach } from '../once-per-request.ts';
import { notingAnswers } from '../upstream-answers.ts';

/** The platform's client for this request: identical reads within the request run once, and answers are noted for provenance. */
export function microblogClient(ctx: RequestContext): MicroblogClient {
  return memoised(ctx, 'microblog-client', () => notingAnswers(ctx, 'microblog', onceEach(ctx.deps.platforms.microblog)));
}

/** One loader set per request, so every microblog field of a GraphQL document shares its batches. */
export function microblogLoaders(ctx: RequestContext): MicroblogLoaders {
  return memoised(ctx, 'microblog-loaders', () => createMicroblogLoaders(microblogClient(ctx)));
}

/** Ids of a bulk request in request order, duplicates dropped (first occurrence kept). */
export function uniqueIds(ids: string): string[] {
  return [...new Set(ids.split(','))];
}
