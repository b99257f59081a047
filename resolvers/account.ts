import { ServiceError } from '../core/error-catalogue.ts';
import { workspaceOf, type RequestContext } from '../core/request-context.ts';
import type { Limits, Usage } from '../adapters/shapes/account-shapes.ts';

const gone = () => new ServiceError('not_found', { message: 'The account no longer exists.', details: { resource: 'workspace' } });

export async function usage(ctx: RequestContext): Promise<Usage> {
  return (await ctx.deps.account.usage(workspaceOf(ctx))) ?? Promise.reject(gone());
}

export async function limits(ctx: RequestContext): Promise<Limits> {
  return (await ctx.deps.account.limits(workspaceOf(ctx))) ?? Promise.reject(gone());
}
