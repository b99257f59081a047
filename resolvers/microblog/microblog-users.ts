import type { GraphQLResolveInfo } from 'graphql';
import type { AboutDetails, MicroblogProfile } from '../../adapters/shapes/microblog-shapes.ts';
import { readCursor, signCursor } from '../../schema/pipeline/cursor.ts';
import type { RequestContext } from '../../schema/pipeline/request-context.ts';
import { parseUserRef, protectedAccount, resolveAccount } from './microblog-accounts.ts';
import { microblogClient, microblogLoaders, uniqueIds } from './microblog-context.ts';

export async function searchMicroblogUsers(
  args: { query: string; limit: number; cursor?: string },
  ctx: RequestContext,
  info: GraphQLResolveInfo,
): Promise<{ items: MicroblogProfile[]; nextCursor: string | null }> {
  const state = readCursor<{ c: string }>(ctx, 'searchMicroblogUsers', { ...args });
  const page = await microblogClient(ctx).searchUsers(args.query, { count: args.limit, cursor: state?.c });
  ctx.meter.add(info, 'user', page.items.length);
  return { items: page.items, nextCursor: page.next ? signCursor(ctx, 'searchMicroblogUsers', { ...args }, { c: page.next }) : null };
}

export function getMicroblogUser(args: { user: string }, ctx: RequestContext, info: GraphQLResolveInfo): Promise<MicroblogProfile> {
  return resolveAccount(ctx, info, args.user, { requirePublic: false });
}

export async function getMicroblogUsers(
  args: { ids: string },
  ctx: RequestContext,
  info: GraphQLResolveInfo,
): Promise<{ items: MicroblogProfile[]; notFound: string[] }> {
  const ids = uniqueIds(args.ids);
  const profiles = await microblogLoaders(ctx).usersById.loadMany(ids);
  const items: MicroblogProfile[] = [];
  const notFound: string[] = [];
  profiles.forEach((profile, index) => {
    if (profile instanceof Error) throw profile;
    // Protected accounts are not returned: their profile is visible on the platform, but the spec lists them as not found here.
    if (profile && !profile.protected) items.push(profile);
    else notFound.push(ids[index]);
  });
  ctx.meter.add(info, 'profile', items.length);
  return { items, notFound };
}

/** A numeric `{user}` is first resolved to its username (a second profile billed), as the spec prices it. */
export async function getMicroblogUserAbout(args: { user: string }, ctx: RequestContext, info: GraphQLResolveInfo): Promise<AboutDetails> {
  const ref = parseUserRef(args.user);
  const username = 'id' in ref ? (await resolveAccount(ctx, info, args.user, { requirePublic: true })).username : ref.username;
  const about = await microblogClient(ctx).getAbout(username);
  if (about.protected) throw protectedAccount(about);
  ctx.meter.add(info, 'profile', 1);
  return about;
}
