import { ServiceError } from '../../core/error-catalogue.ts';
import type { Principal, RequestContext } from '../../core/request-context.ts';

/** The auth scheme is case-insensitive (RFC 9110); the key itself is not. */
const BEARER = /^bearer ([^\s]+)$/i;

/**
 * 429 before the lookup of a credential this instance does not hold in its cache, for an address that sent too many
 * keys that were not valid this minute, or while the instance as a whole sees too many (adapters/identity/key-failures.ts).
 * A cached credential reads nothing, so it is never refused here: clients behind the same address keep working.
 * Kept on the context, so the request is refused once.
 */
export function refuseLookupAfterBadKeys(ctx: RequestContext, secret: string): void {
  const refusal = ctx.deps.keyFailures.refusal(ctx.clientAddress, ctx.now().getTime());
  if (!refusal || ctx.deps.cachedCredential(secret)) return;
  const message =
    refusal.per === 'address'
      ? `This address sent ${refusal.limit} keys that are not valid within a minute: wait, then send a valid key.`
      : `This instance is refusing keys it has not seen lately for a moment (${refusal.limit} that were not valid within a minute): try again shortly.`;
  throw (ctx.keyRefusal = new ServiceError('rate_limited', {
    message,
    details: { reason: 'invalid_keys', per: refusal.per, limit: refusal.limit, retryAfterSeconds: refusal.retryAfterSeconds },
    headers: { 'retry-after': String(refusal.retryAfterSeconds) },
  }));
}

/** Resolves the caller from the `Authorization` header once per call (a refused key too); 401 for anything but a live key. */
export async function authenticate(ctx: RequestContext): Promise<Principal> {
  if (ctx.principal) return ctx.principal;
  if (ctx.keyRefusal) throw ctx.keyRefusal;
  const header = ctx.authorization;
  if (!header) throw new ServiceError('unauthenticated', { message: 'Missing Authorization header: send `Authorization: Bearer <API_KEY>`.', details: { reason: 'missing' } });
  const match = BEARER.exec(header.trim());
  if (!match) throw new ServiceError('unauthenticated', { message: 'The Authorization header must be `Bearer <API_KEY>`.', details: { reason: 'malformed' } });
  refuseLookupAfterBadKeys(ctx, match[1]);
  const result = await ctx.deps.authenticate(match[1]);
  if ('failure' in result) {
    // A malformed key is refused before any lookup: it costs nothing to count.
    if (result.failure !== 'malformed') ctx.deps.keyFailures.failed(ctx.clientAddress, ctx.now().getTime());
    // Kept: the listener checks a key before reading a body, and the pipeline asks again without another lookup.
    throw (ctx.keyRefusal = new ServiceError('unauthenticated', { message: `The API key is ${result.failure}.`, details: { reason: result.failure } }));
  }
  ctx.principal = result;
  return result;
}
