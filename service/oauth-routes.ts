import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import type { McpOAuth } from '../mcp-bridge/mcp-oauth.ts';
import { INTERACTION_PREFIX, OAUTH_PREFIX } from '../oauth-server/authorization-server.ts';

/** The OAuth paths of the public listener, handled before any body is read (the authorization server reads its own). */
export type OAuthRoutes = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;

const AS_METADATA = '/.well-known/oauth-authorization-server';
const OIDC_METADATA = '/.well-known/openid-configuration';

/**
 * oidc-provider builds its endpoints' URLs (metadata, redirects) from the request's host and protocol, and with
 * `proxy` on (an https issuer) from X-Forwarded-Host and X-Forwarded-Proto, which any client can send: a forged value
 * would point MCP clients at another host's authorize and token endpoints. They are set from the issuer instead, so
 * the only header still believed behind a proxy is X-Forwarded-For (the client's address in oidc-provider's own
 * logic; the registration limit reads the socket).
 */
function pinToIssuer(req: IncomingMessage, issuer: URL): void {
  req.headers.host = issuer.host;
  delete req.headers['x-forwarded-host'];
  req.headers['x-forwarded-proto'] = issuer.protocol.slice(0, -1);
}

/**
 * Mounts MCP sign-in on the service's listener: RFC 9728 documents (resource server), RFC 8414 and OpenID discovery
 * and every `/oauth/*` endpoint (authorization server), and the approval screen.
 */
export function createOAuthRoutes(parts: {
  /** The service's public base URL (the issuer): the only origin the authorization server's URLs may name. */
  issuer: string;
  provider: Provider;
  mcpOAuth: McpOAuth;
  interaction: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
}): OAuthRoutes {
  const callback = parts.provider.callback();
  const issuer = new URL(parts.issuer);
  return async (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path.startsWith('/.well-known/oauth-protected-resource')) {
      const response = parts.mcpOAuth.metadataResponse(new Request(new URL(path, 'http://localhost'), { method: req.method }));
      if (!response) return false;
      const body = req.method === 'HEAD' ? '' : await response.text();
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(body);
      return true;
    }
    if (path.startsWith(INTERACTION_PREFIX)) {
      await parts.interaction(req, res);
      return true;
    }
    // RFC 8414's document is the same as the OpenID one oidc-provider serves (issuer without a path).
    if (path === AS_METADATA) req.url = OIDC_METADATA;
    if (path === AS_METADATA || path === OIDC_METADATA || path.startsWith(`${OAUTH_PREFIX}/`)) {
      pinToIssuer(req, issuer);
      await callback(req, res);
      return true;
    }
    return false;
  };
}
