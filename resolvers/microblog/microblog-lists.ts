import type { GraphQLResolveInfo } from 'graphql';
import type { Page as UpstreamPage } from '../../adapters/microblog/microblog-client.ts';
import type { MicroblogList, MicroblogPost, MicroblogProfile, MicroblogSpace } from '../../adapters/shapes/microblog-shapes.ts';
import type { Page } from '../../core/page.ts';
import type { RequestContext } from '../../core/request-context.ts';
import { cursorPage } from '../paging.ts';
import { microblogClient } from './microblog-context.ts';
import { countedPage, type CountedState } from './microblog-counted-pages.ts';

export function getMicroblogList(args: { id: string }, ctx: RequestContext): Promise<MicroblogList> {
  return microblogClient(ctx).getList(args.id);
}

type ListArgs = { id: string; limit: number; cursor?: string };

/** Paging state over a List: the platform's cursor, and for members where the walk stands against the List's count. */
interface ListPageState extends CountedState {
  c: string;
}

/**
 * A page of a List's members or posts. The platform pages a private List's timelines as empty; on the first page
 * the List itself is read alongside (not billed) so a missing or private List is a 404. A walk over the members
 * reads its member count (`countedPage`: the page that reaches it also reads the next, so none is lost past it and
 * no billed empty page follows).
 */
function listPage<T>(
  args: ListArgs,
  ctx: RequestContext,
  info: GraphQLResolveInfo,
  fetch: (page: { cursor?: string; count: number }) => Promise<UpstreamPage<T>>,
  counted: boolean,
): Promise<Page<T>> {
  return cursorPage<T, ListPageState>(ctx, info, args, async (state) => {
    const read = (cursor?: string) => fetch({ cursor, count: args.limit });
    const [page, list] = await Promise.all([read(state?.c), state ? undefined : microblogClient(ctx).getList(args.id)]);
    return countedPage(read, page, state, state?.t ?? (counted ? list?.memberCount : undefined), state !== undefined || info.parentType.name === 'Query');
  });
}

export function getMicroblogListMembers(args: ListArgs, ctx: RequestContext, info: GraphQLResolveInfo): Promise<Page<MicroblogProfile>> {
  return listPage(args, ctx, info, (page) => microblogClient(ctx).getListMembers(args.id, page), true);
}

export function getMicroblogListPosts(args: ListArgs, ctx: RequestContext, info: GraphQLResolveInfo): Promise<Page<MicroblogPost>> {
  return listPage(args, ctx, info, (page) => microblogClient(ctx).getListPosts(args.id, page), false);
}

export function getMicroblogSpace(args: { id: string }, ctx: RequestContext): Promise<MicroblogSpace> {
  return microblogClient(ctx).getSpace(args.id);
}
