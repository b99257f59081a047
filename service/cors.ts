import { DRY_RUN_HEADER, MAX_CREDITS_HEADER } from '../core/call-options.ts';

/**
 * The one CORS policy of the public listener (docs/api-conventions.md "Browsers (CORS)"):
 * - `/graphql` and `/v1/*` answer every origin, and never with credentials: a caller proves itself with a bearer key
 *   its own code puts in `Authorization`, never with a cookie, so a page of another origin gains nothing it could
 *   not do with the key anyway. `*` is sent rather than the origin echoed, so no cache varies by origin.
 * - `/mcp` answers only the origins of `SVC_MCP_ALLOWED_ORIGINS` (echoed, `Vary: Origin`): Streamable HTTP asks
 *   servers to check Origin against DNS rebinding, and the MCP bridge refuses any other origin with 403.
 * - Everything else (the dashboard's cookie session, oidc-provider's own OAuth endpoints, health) adds nothing here.
 */
export type CorsPolicy = (path: string, origin: string) => Record<string, string> | undefined;

const EXPOSED = ['x-credits-charged', 'x-credits-remaining', 'x-request-id', 'retry-after', 'idempotent-replayed', 'www-authenticate'].join(', ');

/** What a preflight may ask for: the methods the API has, and every request header a client of it sends. */
export const PREFLIGHT = {
  'access-control-allow-methods': 'GET, POST, PATCH, DELETE',
  'access-control-allow-headers': ['authorization', 'content-type', 'accept', 'idempotency-key', MAX_CREDITS_HEADER, DRY_RUN_HEADER, 'x-request-id', 'mcp-protocol-version', 'last-event-id'].join(', '),
  // Chromium's cap: a browser asks again at most every two hours.
  'access-control-max-age': '7200',
};

export function createCorsPolicy(mcpAllowedOrigins: ReadonlySet<string>): CorsPolicy {
  const anyOrigin = { 'access-control-allow-origin': '*', 'access-control-expose-headers': EXPOSED };
  return (path, origin) => {
    if (path === '/graphql' || path.startsWith('/v1/')) return anyOrigin;
    if (path === '/mcp' && mcpAllowedOrigins.has(origin)) return { 'access-control-allow-origin': origin, vary: 'Origin', 'access-control-expose-headers': EXPOSED };
    return undefined;
  };
}
