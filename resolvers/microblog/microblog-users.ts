import type { GraphQLResolveInfo } from 'graphql';
import type { AboutDetails, MicroblogProfile } from '../../adapters/shapes/microblog-shapes.ts';
import type { Page } from '../../core/page.ts';
import type { RequestContext } from '../../core/request-context.ts';
import { splitFound } from '../bulk-lookup.ts';
import { cursorPage } from '../paging.ts';
import { parseUserRef, protectedAccount, resolveAccount } from './microblog-accounts.ts';
import { microblogClient, microblogLoaders, uniqueIds } from './microblog-context.ts';

export function searchMicroblogUsers(args: { query: string; limit: number; cursor?: string }, ctx: RequestContext, info: GraphQLResolveInfo): Promise<Page<MicroblogProfile>> {
  return cursorPage<MicroblogProfile, string>(ctx, info, args, (cursor) => microblogClient(ctx).searchUsers(args.query, { count: args.limit, cursor }));
}

/** The profile is what the operation returns (and bills), so its lookup is not billed on its own. */
export function getMicroblogUser(args: { user: string }, ctx: RequestContext, info: GraphQLResolveInfo): Promise<MicroblogProfile> {
  return resolveAccount(ctx, info, args.user, { requirePublic: false, billed: false });
}

/** Protected accounts are not returned: their profile is visible on the platform, but the spec lists them as not found here. */
export async function getMicroblogUsers(args: { ids: string }, ctx: RequestContext): Promise<{ items: MicroblogProfile[]; notFound: string[] }> {
  const ids = uniqueIds(args.ids);
  const { items, missing } = splitFound(ids, await microblogLoaders(ctx).usersById.loadMany(ids), (profile) => !profile.protected);
  return { items, notFound: missing };
}

/** A numeric `{user}` is first resolved to its username (a second profile billed), as the spec prices it. */
export async function getMicroblogUserAbout(args: { user: string }, ctx: RequestContext, info: GraphQLResolveInfo): Promise<AboutDetails> {
  const ref = parseUserRef(args.user);
  const username = 'id' in ref ? (await resolveAccount(ctx, info, args.user, { requirePublic: true, billed: true })).username : ref.username;
  const about = await microblogClient(ctx).getAbout(username);
  if (about.protected) throw protectedAccount(about);
  return about;
}
