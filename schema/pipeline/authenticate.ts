import { ServiceError } from '../../core/error-catalogue.ts';
import type { Principal, RequestContext } from '../../core/request-context.ts';
import { KEY_FAILURES_PER_ADDRESS } from '../../adapters/identity/key-failures.ts';

/** The auth scheme is case-insensitive (RFC 9110); the key itself is not. */
const BEARER = /^bearer ([^\s]+)$/i;

/**
 * 429 before any lookup for an address that sent too many keys that were not valid this minute
 * (adapters/identity/key-failures.ts); kept on the context, so the request is refused once.
 */
export function refuseAddressOfBadKeys(ctx: RequestContext): void {
  const wait = ctx.deps.keyFailures.retryAfterSeconds(ctx.clientAddress, ctx.now().getTime());
  if (wait === 0) return;
  throw (ctx.keyRefusal = new ServiceError('rate_limited', {
    message: `This address sent ${KEY_FAILURES_PER_ADDRESS.limit} keys that are not valid within a minute: wait, then send a valid key.`,
    details: { reason: 'invalid_keys', limit: KEY_FAILURES_PER_ADDRESS.limit, retryAfterSeconds: wait },
    headers: { 'retry-after': String(wait) },
  }));
}

/** Resolves the caller from the `Authorization` header once per call (a refused key too); 401 for anything but a live key. */
export async function authenticate(ctx: RequestContext): Promise<Principal> {
  if (ctx.principal) return ctx.principal;
  if (ctx.keyRefusal) throw ctx.keyRefusal;
  const header = ctx.authorization;
  if (!header) throw new ServiceError('unauthenticated', { message: 'Missing Authorization header: send `Authorization: Bearer <API_KEY>`.', details: { reason: 'missing' } });
  refuseAddressOfBadKeys(ctx);
  const match = BEARER.exec(header.trim());
  if (!match) throw new ServiceError('unauthenticated', { message: 'The Authorization header must be `Bearer <API_KEY>`.', details: { reason: 'malformed' } });
  const result = await ctx.deps.authenticate(match[1]);
  if ('failure' in result) {
    ctx.deps.keyFailures.failed(ctx.clientAddress, ctx.now().getTime());
    // Kept: the listener checks a key before reading a body, and the pipeline asks again without another lookup.
    throw (ctx.keyRefusal = new ServiceError('unauthenticated', { message: `The API key is ${result.failure}.`, details: { reason: result.failure } }));
  }
  ctx.principal = result;
  return result;
}
