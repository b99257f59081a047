import type { GraphQLResolveInfo } from 'graphql';
import type { Page as UpstreamPage } from '../../adapters/microblog/microblog-client.ts';
import type { MicroblogPost, MicroblogProfile } from '../../adapters/shapes/microblog-shapes.ts';
import type { Page } from '../../core/page.ts';
import type { RequestContext } from '../../core/request-context.ts';
import { capped } from '../../adapters/shapes/paging-shapes.ts';
import { cursorPage } from '../paging.ts';
import { protectedAccount, resolveAccount } from './microblog-accounts.ts';
import { microblogClient } from './microblog-context.ts';

/** Paging state of the operations over one account: the resolved account and the platform's cursor. */
interface AccountPageState {
  u: string;
  c: string;
  /**
   * Accounts returned so far, those the platform listed but that were left out (suspended), and the profile's own
   * count of them, where it has one (followers, following).
   */
  n?: number;
  o?: number;
  t?: number;
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
    const page = await fetch(userId, { cursor: state?.c, count: args.limit });
    // The profile's count ends the walk on the page that reaches it, instead of a billed empty page after it. It
    // counts the accounts the platform lists but the page leaves out (suspended) as well.
    const total = state?.t ?? (profile && totalOf ? totalOf(profile) : undefined);
    const seen = (state?.n ?? 0) + page.items.length;
    const leftOut = (state?.o ?? 0) + (page.leftOut ?? 0);
    if (page.truncated) return { items: page.items, next: null, truncated: { ...page.truncated, seen, expected: total ?? null } };
    // The platform ended the list short of the profile's own count of it.
    if (!page.next && total !== undefined && seen + leftOut < total) return { items: page.items, next: null, truncated: capped(seen, total) };
    if (!page.next || (total !== undefined && seen + leftOut >= total)) return { items: page.items, next: null };
    return { items: page.items, next: { u: userId, c: page.next, ...(total === undefined ? {} : { n: seen, ...(leftOut ? { o: leftOut } : {}), t: total }) } };
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
