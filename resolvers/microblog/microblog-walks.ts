import type { GraphQLResolveInfo } from 'graphql';
import type { MicroblogPostBase, MicroblogProfile } from '../../adapters/shapes/microblog-shapes.ts';
import { itemsIn } from '../../core/meter.ts';
import type { Page } from '../../core/page.ts';
import type { RequestContext } from '../../core/request-context.ts';
import { cursorPage } from '../paging.ts';
import { protectedAccount } from './microblog-accounts.ts';
import { microblogClient, microblogLoaders } from './microblog-context.ts';

/**
 * Fields a GraphQL query may walk across (post → author profile → followers). Every author of a result is
 * loaded through the per-request loader, so a page of posts costs one profile round trip; what is returned is
 * billed at the same unit prices as the operations that return it.
 */
export async function authorProfile(post: MicroblogPostBase, ctx: RequestContext, info: GraphQLResolveInfo): Promise<MicroblogProfile | null> {
  const profile = await microblogLoaders(ctx).usersById.load(post.author.id);
  ctx.meter.add(info, 'profile', itemsIn(profile));
  return profile;
}

export async function profileFollowers(profile: MicroblogProfile, args: { cursor?: string | null }, ctx: RequestContext, info: GraphQLResolveInfo): Promise<Page<MicroblogProfile>> {
  if (profile.protected) throw protectedAccount(profile);
  const page = await cursorPage<MicroblogProfile, string>(ctx, info, { user: profile.id, cursor: args.cursor ?? undefined }, (cursor) =>
    microblogClient(ctx).getUserList(profile.id, 'followers', { cursor }),
  );
  ctx.meter.add(info, 'user', page.items.length);
  return page;
}
