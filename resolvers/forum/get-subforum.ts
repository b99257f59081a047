import type { Subforum } from '../../adapters/shapes/forum-shapes.ts';
import { subforumNotPublicReason } from '../../adapters/forum/forum-error-classifier.ts';
import { ServiceError } from '../../core/error-catalogue.ts';
import type { RequestContext } from '../../core/request-context.ts';
import { forumClient } from './forum-context.ts';

/** `/r/{name}/about`; the client turns the platform's 403/404 bodies into not_found / not_public(reason). */
export async function getSubforum(args: { name: string }, ctx: RequestContext): Promise<Subforum> {
  const sub = await forumClient(ctx).getSubforumAbout(args.name);
  const reason = subforumNotPublicReason(sub);
  if (reason) throw new ServiceError('not_found', { message: `r/${args.name} is not publicly readable (${reason}).`, details: { reason } });
  return sub;
}
