import type { GraphQLResolveInfo } from 'graphql';
import type { MicroblogProfile } from '../../adapters/shapes/microblog-shapes.ts';
import { ServiceError } from '../../core/error-catalogue.ts';
import type { RequestContext } from '../../core/request-context.ts';
import { microblogClient } from './microblog-context.ts';

/** `{user}`: an all-digit value is an account id, anything else a username (an `@` is dropped). */
export function parseUserRef(user: string): { id: string } | { username: string } {
  const bare = user.replace(/^@/, '');
  return /^[0-9]+$/.test(bare) ? { id: bare } : { username: bare };
}

export function protectedAccount(profile: { username: string }): ServiceError {
  return new ServiceError('not_found', {
    message: `The account @${profile.username} is protected: only approved followers see its posts and relationships.`,
    details: { platform: 'microblog', reason: 'protected' },
  });
}

/**
 * Resolves `{user}` to a profile; `billed` bills it as one profile lookup (the one place lookups are counted).
 * Unknown accounts are 404, suspended or otherwise unavailable ones 404 with the reason (from the client's typed
 * errors); with `requirePublic` a protected account is 404 too.
 */
export async function resolveAccount(
  ctx: RequestContext,
  info: GraphQLResolveInfo,
  user: string,
  options: { requirePublic: boolean; billed: boolean },
): Promise<MicroblogProfile> {
  const ref = parseUserRef(user);
  const client = microblogClient(ctx);
  const profile = 'id' in ref ? await client.getUserById(ref.id) : await client.getUserByUsername(ref.username);
  if (options.requirePublic && profile.protected) throw protectedAccount(profile);
  if (options.billed) ctx.meter.add(info, 'profile', 1);
  return profile;
}
