import type { IncomingMessage } from 'node:http';
import { parse } from 'node:querystring';
import type { Middleware } from 'koa';

/** oidc-provider's own limit on a form body; a longer one is refused as it would refuse it. */
const BODY_LIMIT = 56 * 1024;

/**
 * Refuses a token request naming a resource other than `resource` before oidc-provider handles it. oidc-provider
 * checks the resource only after it has consumed the authorization code, or rotated the refresh token, so its own
 * `invalid_target` would use them up: the client's corrected retry would then be a replay, which revokes the grant
 * (and with it the connection). Refused here, the request has no effect at all.
 */
export function refuseForeignTokenResource(tokenPath: string, resource: string): Middleware {
  return async (ctx, next) => {
    if (ctx.method !== 'POST' || ctx.path !== tokenPath || !ctx.is('application/x-www-form-urlencoded')) return next();
    const body = await readBody(ctx.req);
    if (!body) return refuse(ctx, 'invalid_request', 'failed to parse the request body');
    const named = parse(body.toString('utf8')).resource;
    if ([named ?? []].flat().some((value) => value !== resource)) return refuse(ctx, 'invalid_target', `the only resource here is ${resource}`);
    // The body is read: oidc-provider takes it from `req.body` instead (and notes that once in its log).
    (ctx.req as IncomingMessage & { body?: Buffer }).body = body;
    return next();
  };
}

function refuse(ctx: Parameters<Middleware>[0], error: string, description: string): void {
  ctx.status = 400;
  ctx.set('cache-control', 'no-store');
  ctx.body = { error, error_description: description };
}

/** The whole body, or undefined when it is longer than the limit. */
async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    received += chunk.length;
    if (received > BODY_LIMIT) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, received);
}
