import { authenticate } from './authenticate.ts';
import type { RequestContext } from '../../core/request-context.ts';

/**
 * Credit headers for a response refused before any operation ran (a malformed request, an unknown path): it
 * charged nothing, and when the caller's key is valid it also reports what is left. Responses that went
 * through the pipeline already carry both.
 */
export async function reportNothingCharged(ctx: RequestContext): Promise<void> {
  if (ctx.responseHeaders['x-credits-charged'] !== undefined) return;
  ctx.responseHeaders['x-credits-charged'] = '0';
  if (!ctx.authorization) return;
  try {
    const principal = await authenticate(ctx);
    ctx.responseHeaders['x-credits-remaining'] = String(await ctx.deps.billing.remaining(principal));
  } catch {
    // An invalid key has no balance to report; the response says why the request failed.
  }
}
