import type { GraphQLResolveInfo } from 'graphql';
import { buildSearchQuery, SearchFilterError, type PostSearchFilters } from '../../adapters/microblog/microblog-search-builder.ts';
import type { MicroblogPost } from '../../adapters/shapes/microblog-shapes.ts';
import { ServiceError } from '../../core/error-catalogue.ts';
import type { Page } from '../../core/page.ts';
import type { RequestContext } from '../../core/request-context.ts';
import { cursorPage } from '../paging.ts';
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

export function searchMicroblogPosts(args: PostSearchArgs, ctx: RequestContext, info: GraphQLResolveInfo): Promise<Page<MicroblogPost>> {
  const rawQuery = rawQueryOf(args);
  return cursorPage<MicroblogPost, string>(ctx, info, args, (cursor) =>
    microblogClient(ctx).searchPosts(rawQuery, args.sort === 'top' ? 'Top' : 'Latest', { count: args.limit, cursor }),
  );
}
