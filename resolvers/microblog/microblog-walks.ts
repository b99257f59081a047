import type { GraphQLResolveInfo } from 'graphql';
import type { MicroblogPostBase, MicroblogProfile } from '../../adapters/shapes/microblog-shapes.ts';
import { readCursor, signCursor } from '../../schema/pipeline/cursor.ts';
import type { RequestContext } from '../../schema/pipeline/request-context.ts';
import { protectedAccount } from './microblog-accounts.ts';
import { microblogClient, microblogLoaders } from './microblog-context.ts';

/**
 * Fields a GraphQL query may walk across (post → author profile → followers). Every author of a result is
 * loaded through the per-request loader, so a page of posts costs one profile round trip; what is returned is
 * billed at the same unit prices as the operations that return it.
 */
export async function authorProfile(post: MicroblogPostBase, ctx: RequestContext, info: GraphQLResolveInfo): Promise<MicroblogProfile | null> {
  const profile = await microblogLoaders(ctx).usersById.load(post.author.id);
  if (profile) ctx.meter.add(info, 'profile', 1);
  return profile;
}

const FOLLOWERS_WALK = 'MicroblogProfile.followers';

export async function profileFollowers(
  profile: MicroblogProfile,
  args: { cursor?: string | null },
  ctx: RequestContext,
  info: GraphQLResolveInfo,
): Promise<{ items: MicroblogProfile[]; nextCursor: string | null }> {
  if (profile.protected) throw protectedAccount(profile);
  const params = { user: profile.id, cursor: args.cursor ?? undefined };
  const state = readCursor<{ c: string }>(ctx, FOLLOWERS_WALK, params);
  const page = await microblogClient(ctx).getUserList(profile.id, 'followers', { cursor: state?.c });
  ctx.meter.add(info, 'user', page.items.length);
  return { items: page.items, nextCursor: page.next ? signCursor(ctx, FOLLOWERS_WALK, params, { c: page.next }) : null };
}
