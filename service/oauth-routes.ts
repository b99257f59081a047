import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import type { McpOAuth } from '../mcp-bridge/mcp-oauth.ts';
import { INTERACTION_PREFIX, OAUTH_PREFIX } from '../oauth-server/authorization-server.ts';

/** The OAuth paths of the public listener, handled before any body is read (the authorization server reads its own). */
export type OAuthRoutes = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;

const AS_METADATA = '/.well-known/oauth-authorization-server';
const OIDC_METADATA = '/.well-known/openid-configuration';

/**
 * Mounts MCP sign-in on the service's listener: RFC 9728 documents (resource server), RFC 8414 and OpenID discovery
 * and every `/oauth/*` endpoint (authorization server), and the approval screen.
 */
export function createOAuthRoutes(parts: {
  provider: Provider;
  mcpOAuth: McpOAuth;
  interaction: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
}): OAuthRoutes {
  const callback = parts.provider.callback();
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
      await callback(req, res);
      return true;
    }
    return false;
  };
}
