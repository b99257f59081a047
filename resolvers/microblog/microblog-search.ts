import type { GraphQLResolveInfo } from 'graphql';
import { buildSearchQuery, SearchFilterError, type PostSearchFilters } from '../../adapters/microblog/microblog-search-builder.ts';
import type { MicroblogPost } from '../../adapters/shapes/microblog-shapes.ts';
import { ServiceError } from '../../schema/error-catalogue.ts';
import { readCursor, signCursor } from '../../schema/pipeline/cursor.ts';
import type { RequestContext } from '../../schema/pipeline/request-context.ts';
import { microblogClient } from './microblog-context.ts';

export type PostSearchArgs = Omit<PostSearchFilters, 'text'> & {
  query?: string;
  sort: 'latest' | 'top';
  limit: number;
  cursor?: string;
};

/** The platform query is built from validated filters; a filter the builder refuses is a 400 naming it. */
function rawQueryOf(args: PostSearchArgs): string {
  const { query, sort: _sort, limit: _limit, cursor: _cursor, ...filters } = args;
  try {
    return buildSearchQuery({ ...filters, text: query });
  } catch (error) {
    if (error instanceof SearchFilterError) {
      throw new ServiceError('invalid_request', { message: error.message, details: { field: error.field === 'text' ? 'query' : error.field } });
    }
    throw error;
  }
}

export async function searchMicroblogPosts(
  args: PostSearchArgs,
  ctx: RequestContext,
  info: GraphQLResolveInfo,
): Promise<{ items: MicroblogPost[]; nextCursor: string | null }> {
  const rawQuery = rawQueryOf(args);
  const state = readCursor<{ c: string }>(ctx, 'searchMicroblogPosts', { ...args });
  const page = await microblogClient(ctx).searchPosts(rawQuery, args.sort === 'top' ? 'Top' : 'Latest', { count: args.limit, cursor: state?.c });
  ctx.meter.add(info, 'post', page.items.length);
  return { items: page.items, nextCursor: page.next ? signCursor(ctx, 'searchMicroblogPosts', { ...args }, { c: page.next }) : null };
}
