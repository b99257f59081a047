import type { Middleware } from 'koa';
import { reachesRoute } from './route-path.ts';

/**
 * Refuses a client registration with 429 when its address has registered too many (`wait` says how many seconds it
 * must wait, 0 to go on). In front of oidc-provider's router, matching the paths it matches (see reachesRoute).
 */
export function limitClientRegistrations(registrationPath: string, wait: (address: string) => Promise<number>): Middleware {
  return async (ctx, next) => {
    if (ctx.method !== 'POST' || !reachesRoute(ctx.path, registrationPath)) return next();
    const seconds = await wait(ctx.req.socket.remoteAddress ?? 'unknown');
    if (seconds <= 0) return next();
    ctx.status = 429;
    ctx.set('retry-after', String(seconds));
    ctx.set('cache-control', 'no-store');
    ctx.body = { error: 'slow_down', error_description: `Too many client registrations from this address: retry in ${seconds} s.` };
  };
}
