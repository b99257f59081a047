import { ServiceError } from '../../core/error-catalogue.ts';
import type { Principal, RequestContext } from '../../core/request-context.ts';
import { KEY_FAILURES } from '../../adapters/identity/key-failures.ts';

/** The auth scheme is case-insensitive (RFC 9110); the key itself is not. */
const BEARER = /^bearer ([^\s]+)$/i;

/**
 * Before a credential is read from the database (it is not cached): refused with 429 when its address sent too many
 * that were not valid this minute and this instance did not read it live lately (`known`), else counted until it
 * proves live (adapters/identity/key-failures.ts). The refusal is kept on the context, so the request is refused once.
 */
function lookupOfCredential(ctx: RequestContext, known: boolean): void {
  const nowMs = ctx.now().getTime();
  const wait = ctx.deps.keyFailures.retryAfterSeconds(ctx.clientAddress, nowMs);
  if (wait > 0 && !known) {
    throw (ctx.keyRefusal = new ServiceError('rate_limited', {
      message: `This address sent ${KEY_FAILURES.perAddress} keys that are not valid within a minute: wait, then send a valid key.`,
      details: { reason: 'invalid_keys', limit: KEY_FAILURES.perAddress, retryAfterSeconds: wait },
      headers: { 'retry-after': String(wait) },
    }));
  }
  ctx.deps.keyFailures.lookingUp(ctx.clientAddress, nowMs);
}

/**
 * A credential's check (`check` calls its `beforeLookup` when it must read the database) with that read bounded per
 * address: counted when it starts, taken back once the credential proves `live`, or when the check fails otherwise
 * than by refusing it (`refused`: the database did not answer, and nothing was learnt of the credential).
 */
export async function withBoundedLookup<T>(
  ctx: RequestContext,
  check: (beforeLookup: (known: boolean) => void) => Promise<T>,
  live: (result: T) => boolean,
  refused: (error: unknown) => boolean = () => false,
): Promise<T> {
  let lookedUp = false;
  const takeBack = () => lookedUp && ctx.deps.keyFailures.found(ctx.clientAddress, ctx.now().getTime());
  let result: T;
  try {
    result = await check((known) => {
      lookupOfCredential(ctx, known);
      lookedUp = true;
    });
  } catch (error) {
    if (!refused(error)) takeBack();
    throw error;
  }
  if (live(result)) takeBack();
  return result;
}

/** Resolves the caller from the `Authorization` header once per call (a refused key too); 401 for anything but a live key. */
export async function authenticate(ctx: RequestContext): Promise<Principal> {
  if (ctx.principal) return ctx.principal;
  if (ctx.keyRefusal) throw ctx.keyRefusal;
  const header = ctx.authorization;
  if (!header) throw new ServiceError('unauthenticated', { message: 'Missing Authorization header: send `Authorization: Bearer <API_KEY>`.', details: { reason: 'missing' } });
  const match = BEARER.exec(header.trim());
  if (!match) throw new ServiceError('unauthenticated', { message: 'The Authorization header must be `Bearer <API_KEY>`.', details: { reason: 'malformed' } });
  const result = await withBoundedLookup(ctx, (beforeLookup) => ctx.deps.authenticate(match[1], beforeLookup), (found) => !('failure' in found));
  if ('failure' in result) {
    // Kept: the listener checks a key before reading a body, and the pipeline asks again without another lookup.
    throw (ctx.keyRefusal = new ServiceError('unauthenticated', { message: `The API key is ${result.failure}.`, details: { reason: result.failure } }));
  }
  ctx.principal = result;
  return result;
}
