import type { IncomingMessage } from 'node:http';
import { parse } from 'node:querystring';
import type { Middleware } from 'koa';
import type Provider from 'oidc-provider';
import { readFormBody } from './form-body.ts';
import { reachesRoute } from './route-path.ts';

/** Whether a browser page at `origin` may read the token endpoint's answers to `client` (oidc-provider's clientBasedCORS). */
export type ClientCorsPolicy = (origin: string, client: InstanceType<Provider['Client']>) => boolean;

export interface TokenResourceCheck {
  tokenPath: string;
  resource: string;
  clients: Pick<Provider['Client'], 'find'>;
  allowsOrigin: ClientCorsPolicy;
}

/**
 * Refuses a token request naming a resource other than `resource` before oidc-provider handles it. oidc-provider
 * checks the resource only after it has consumed the authorization code, or rotated the refresh token, so its own
 * `invalid_target` would use them up: the client's corrected retry would then be a replay, which revokes the grant
 * (and with it the connection). Refused here, the request has no effect at all.
 */
export function refuseForeignTokenResource({ tokenPath, resource, clients, allowsOrigin }: TokenResourceCheck): Middleware {
  return async (ctx, next) => {
    if (ctx.method !== 'POST' || !reachesRoute(ctx.path, tokenPath) || !ctx.is('application/x-www-form-urlencoded')) return next();
    const body = await readFormBody(ctx.req);
    if (!body) return refuse(ctx, 'invalid_request', 'failed to parse the request body');
    const form = parse(body.toString('utf8'));
    if ([form.resource ?? []].flat().some((value) => value !== resource)) {
      await allowClientOrigin(ctx, form.client_id, clients, allowsOrigin);
      return refuse(ctx, 'invalid_target', `the only resource here is ${resource}`);
    }
    // The body is read: oidc-provider takes it from `req.body` instead (and notes that once in its log).
    (ctx.req as IncomingMessage & { body?: Buffer }).body = body;
    return next();
  };
}

/**
 * The CORS headers oidc-provider's token endpoint would give this answer, so a browser-based client reads the refusal
 * instead of an opaque network error: its origin is allowed when the (public) client it names allows it. Public
 * clients always name themselves in the body, and only they are allowed origins.
 */
async function allowClientOrigin(ctx: Parameters<Middleware>[0], clientId: unknown, clients: TokenResourceCheck['clients'], allowsOrigin: ClientCorsPolicy): Promise<void> {
  ctx.vary('Origin');
  const origin = ctx.get('Origin');
  if (!origin || typeof clientId !== 'string') return;
  const client = await clients.find(clientId).catch(() => undefined);
  if (!client || !allowsOrigin(origin, client)) return;
  ctx.set('access-control-allow-origin', origin);
  ctx.set('access-control-expose-headers', 'WWW-Authenticate');
}

function refuse(ctx: Parameters<Middleware>[0], error: string, description: string): void {
  ctx.status = 400;
  ctx.set('cache-control', 'no-store');
  ctx.body = { error, error_description: description };
}
