import { isDatabaseUnavailable } from '../../adapters/db/connection-error.ts';
import { authenticate } from './authenticate.ts';
import { ServiceError } from '../../core/error-catalogue.ts';
import type { RequestContext } from '../../core/request-context.ts';

/** The credit headers of a call: what it charged and, when the caller is known, what is left. */
export function setCreditHeaders(ctx: RequestContext, charged: number, remaining: number | undefined): void {
  ctx.responseHeaders['x-credits-charged'] = String(charged);
  if (remaining === undefined) return;
  ctx.responseHeaders['x-credits-remaining'] = String(remaining);
}

/**
 * What is left, for a call of a known key refused before any credit moved. A rate-limit refusal reports the balance
 * this instance last learned for the account (no database round trip, docs/hot-path.md); so does a refusal because
 * the database is unreachable (503 not_ready), which only that balance can answer, and which must not wait on the
 * database again for a header; anything else asks the billing gate.
 */
export async function remainingAfterRefusal(ctx: RequestContext, error: unknown): Promise<number | undefined> {
  if (!ctx.principal) return undefined;
  const code = error instanceof ServiceError ? error.extensions.code : undefined;
  if (code === 'not_ready' || isDatabaseUnavailable(error)) return ctx.deps.billing.lastKnownRemaining(ctx.principal);
  const known = code === 'rate_limited' ? ctx.deps.billing.lastKnownRemaining(ctx.principal) : undefined;
  return known ?? (await ctx.deps.billing.remaining(ctx.principal).catch(() => undefined));
}

/**
 * Credit headers for a response refused before any operation ran (a malformed request, an unknown path): it
 * charged nothing, and when the caller's key is valid it also reports what is left. Responses that went
 * through the pipeline already carry both. The listener applies it to every response of every surface.
 */
export async function reportNothingCharged(ctx: RequestContext): Promise<void> {
  if (ctx.responseHeaders['x-credits-charged'] !== undefined) return;
  setCreditHeaders(ctx, 0, undefined);
  if (!ctx.authorization) return;
  try {
    const principal = await authenticate(ctx);
    setCreditHeaders(ctx, 0, await ctx.deps.billing.remaining(principal));
  } catch {
    // An invalid key has no balance to report; the response says why the request failed.
  }
}
