import { ServiceError } from '../../core/error-catalogue.ts';
import type { Principal, RequestContext } from '../../core/request-context.ts';

/** The auth scheme is case-insensitive (RFC 9110); the key itself is not. */
const BEARER = /^bearer ([^\s]+)$/i;

/** Resolves the caller from the `Authorization` header once per call (a refused key too); 401 for anything but a live key. */
export async function authenticate(ctx: RequestContext): Promise<Principal> {
  if (ctx.principal) return ctx.principal;
  if (ctx.keyRefusal) throw ctx.keyRefusal;
  const header = ctx.authorization;
  if (!header) throw new ServiceError('unauthenticated', { message: 'Missing Authorization header: send `Authorization: Bearer <API_KEY>`.', details: { reason: 'missing' } });
  const match = BEARER.exec(header.trim());
  if (!match) throw new ServiceError('unauthenticated', { message: 'The Authorization header must be `Bearer <API_KEY>`.', details: { reason: 'malformed' } });
  const result = await ctx.deps.authenticate(match[1]);
  if ('failure' in result) {
    // Kept: the listener checks a key before reading a body, and the pipeline asks again without another lookup.
    throw (ctx.keyRefusal = new ServiceError('unauthenticated', { message: `The API key is ${result.failure}.`, details: { reason: result.failure } }));
  }
  ctx.principal = result;
  return result;
}
