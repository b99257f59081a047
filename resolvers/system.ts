import type { RequestContext } from '../core/request-context.ts';
import { ServiceError } from '../core/error-catalogue.ts';

export function health(ctx: RequestContext) {
  return { status: 'ok' as const, service: ctx.deps.serviceName, version: ctx.deps.version, timestamp: ctx.now().toISOString() };
}

export async function readiness(ctx: RequestContext) {
  const ready = await ctx.deps.databaseReady();
  return { ...health(ctx), status: ready ? ('ok' as const) : ('degraded' as const) };
}

export function whoami(ctx: RequestContext) {
  const principal = ctx.principal;
  // The pipeline authenticates before any key-only field runs; reaching here without a principal is a bug.
  if (!principal) throw new ServiceError('internal_error');
  return {
    keyId: principal.keyId,
    label: principal.label,
    scopes: [...principal.scopes],
    createdAt: principal.createdAt.toISOString(),
    expiresAt: principal.expiresAt ? principal.expiresAt.toISOString() : null,
    workspaceId: principal.workspaceId,
  };
}
