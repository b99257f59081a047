import type { GraphQLResolveInfo } from 'graphql';
import type { Page as UpstreamPage } from '../../adapters/microblog/microblog-client.ts';
import type { MicroblogPost, MicroblogProfile } from '../../adapters/shapes/microblog-shapes.ts';
import type { Page } from '../../core/page.ts';
import type { RequestContext } from '../../core/request-context.ts';
import { cursorPage } from '../paging.ts';
import { protectedAccount, resolveAccount } from './microblog-accounts.ts';
import { microblogClient } from './microblog-context.ts';
import { countedPage, type CountedState } from './microblog-counted-pages.ts';

/**
 * Paging state of the operations over one account: the resolved account, the platform's cursor, and where a walk
 * over a list the profile counts stands (followers, following).
 */
interface AccountPageState extends CountedState {
  u: string;
  c: string;
}

type AccountArgs = { user: string; limit?: number; cursor?: string };

/** The account of a first page: the profile a walk starts from (no lookup), or `{user}` resolved and billed. */
async function firstPageAccount(ctx: RequestContext, info: GraphQLResolveInfo, user: string, known: MicroblogProfile | undefined): Promise<MicroblogProfile> {
  if (!known) return resolveAccount(ctx, info, user, { requirePublic: true, billed: true });
  if (known.protected) throw protectedAccount(known);
  return known;
}

/**
 * One page over an account's posts or relationships. The first page resolves `{user}` (404 when it does not
 * exist or is protected) and bills that profile lookup, unless a walk starts from the profile itself (`known`);
 * the cursor carries the resolved account, so later pages neither look it up nor bill it again.
 */
function accountPage<T>(
  args: AccountArgs,
  ctx: RequestContext,
  info: GraphQLResolveInfo,
  fetch: (userId: string, page: { cursor?: string; count?: number }) => Promise<UpstreamPage<T>>,
  totalOf?: (profile: MicroblogProfile) => number,
  known?: MicroblogProfile,
): Promise<Page<T>> {
  return cursorPage<T, AccountPageState>(ctx, info, args, async (state) => {
    const profile = state ? undefined : await firstPageAccount(ctx, info, args.user, known);
    const userId = state ? state.u : profile!.id;
    const read = (cursor?: string) => fetch(userId, { cursor, count: args.limit });
    const total = state?.t ?? (profile && totalOf ? totalOf(profile) : undefined);
    const page = await countedPage(read, await read(state?.c), state, total, state !== undefined || info.parentType.name === 'Query');
    return { ...page, next: page.next && { u: userId, ...page.next } };
  });
}

export const userTimelinePage = (kind: 'posts' | 'replies' | 'media' | 'highlights') =>
  (args: AccountArgs, ctx: RequestContext, info: GraphQLResolveInfo, known?: MicroblogProfile): Promise<Page<MicroblogPost>> =>
    accountPage(args, ctx, info, (userId, page) => microblogClient(ctx).getUserTimeline(userId, kind, page), undefined, known);

const COUNT_OF = {
  followers: (profile: MicroblogProfile) => profile.followersCount,
  following: (profile: MicroblogProfile) => profile.followingCount,
  affiliates: undefined,
} as const;

export const userListPage = (kind: 'followers' | 'following' | 'affiliates') =>
  (args: AccountArgs, ctx: RequestContext, info: GraphQLResolveInfo, known?: MicroblogProfile): Promise<Page<MicroblogProfile>> =>
    accountPage(args, ctx, info, (userId, page) => microblogClient(ctx).getUserList(userId, kind, page), COUNT_OF[kind], known);
