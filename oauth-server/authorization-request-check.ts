import type { IncomingMessage } from 'node:http';
import type { Middleware } from 'koa';
import { messagePage, PAGE_HEADERS } from './approval-page.ts';
import { readFormBody } from './form-body.ts';
import { reachesRoute } from './route-path.ts';

/** The longest value one authorization request parameter may have (`state`, `redirect_uri`, …), in characters. */
export const AUTHORIZATION_PARAMETER_MAX = 2048;
/** The most all of one authorization request's parameters may hold together (names and values), in characters. */
export const AUTHORIZATION_REQUEST_MAX = 8192;

/** What is wrong with an authorization request's parameters, or undefined. */
export function parameterProblem(params: URLSearchParams): string | undefined {
  let total = 0;
  for (const [name, value] of params) {
    total += name.length + value.length;
    if (value.length > AUTHORIZATION_PARAMETER_MAX) return `${name.slice(0, 40)} is longer than ${AUTHORIZATION_PARAMETER_MAX} characters`;
  }
  return total > AUTHORIZATION_REQUEST_MAX ? `the parameters are longer than ${AUTHORIZATION_REQUEST_MAX} characters together` : undefined;
}

/**
 * In front of oidc-provider's authorization endpoint, which stores an interaction (kept an hour) for each request
 * before anyone signs in: a request whose parameters are too long is refused with `invalid_request`
 * on a page (its redirect URI is not checked yet, so nothing is sent back to it), and an address may make only so
 * many requests an hour (`wait` says how many seconds it must wait, 0 to go on), then 429 with `Retry-After`.
 */
export function boundAuthorizationRequests(authorizationPath: string, wait: (address: string) => Promise<number>): Middleware {
  return async (ctx, next) => {
    if ((ctx.method !== 'GET' && ctx.method !== 'POST') || !reachesRoute(ctx.path, authorizationPath)) return next();
    let params = ctx.querystring;
    if (ctx.method === 'POST' && ctx.is('application/x-www-form-urlencoded')) {
      const body = await readFormBody(ctx.req, AUTHORIZATION_REQUEST_MAX * 3);
      if (!body) return refuse(ctx, 400, `invalid_request: the parameters are longer than ${AUTHORIZATION_REQUEST_MAX} characters together.`);
      (ctx.req as IncomingMessage & { body?: Buffer }).body = body;
      params = body.toString('utf8');
    }
    const problem = parameterProblem(new URLSearchParams(params));
    if (problem) return refuse(ctx, 400, `invalid_request: ${problem}.`);
    const seconds = await wait(ctx.req.socket.remoteAddress ?? 'unknown');
    if (seconds <= 0) return next();
    ctx.set('retry-after', String(seconds));
    refuse(ctx, 429, `Too many sign-ins from this address: retry in ${seconds} s.`);
  };
}

function refuse(ctx: Parameters<Middleware>[0], status: number, message: string): void {
  ctx.status = status;
  ctx.set(PAGE_HEADERS);
  ctx.body = messagePage('This sign-in cannot continue', message);
}
