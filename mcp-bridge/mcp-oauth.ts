import {
  bearerAuthChallengeResponse,
  buildOAuthProtectedResourceMetadata,
  getOAuthProtectedResourceMetadataUrl,
  OAuthError,
  OAuthErrorCode,
  verifyBearerToken,
  type AuthInfo,
  type OAuthTokenVerifier,
} from '@modelcontextprotocol/server';
import type { ConnectionStore } from '../adapters/oauth/connection-store.ts';
import { CONNECTION_SCOPES, SCOPES } from '../adapters/identity/scopes.ts';
import type { Principal } from '../core/request-context.ts';

const KEY_PREFIX = /^svc_(live|test)_/;

/** The resource-server half of MCP sign-in: metadata, challenges and token verification for `/mcp`. */
export interface McpOAuth {
  /** RFC 9728 document for the `/.well-known/oauth-protected-resource[/mcp]` paths, or undefined for other paths. */
  metadataResponse(request: Request): Response | undefined;
  /** `WWW-Authenticate` for a request that carried no credentials. */
  challenge(): string;
  /** `WWW-Authenticate` for a refused credential (`invalid_token`) or a missing scope (`insufficient_scope`). */
  refusal(code: 'invalid_token' | 'insufficient_scope', description: string, scopes?: readonly string[]): string;
  /**
   * An OAuth access token as a principal; API keys (`svc_…`) are left to the pipeline. Throws OAuthError when refused.
   * `beforeLookup` as for ConnectionStore.verifyAccessToken.
   */
  principalOf(authorization: string | undefined, beforeLookup?: (known: boolean) => void): Promise<Principal | undefined>;
}

/** Resolved once the listener knows its public URL: the issuer is the base URL, the resource `{base}/mcp`. */
export function createMcpOAuth(baseUrl: string, connections: Pick<ConnectionStore, 'verifyAccessToken'>): McpOAuth {
  const resource = new URL('/mcp', baseUrl);
  const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(resource);
  const metadata = buildOAuthProtectedResourceMetadata({
    oauthMetadata: { issuer: new URL(baseUrl).href.replace(/\/$/, ''), authorization_endpoint: '', token_endpoint: '', response_types_supported: ['code'] },
    resourceServerUrl: resource,
    scopesSupported: [...SCOPES],
    resourceName: 'Conversation Data Service',
    // The embedded default runs on plain http under whatever host it was given; production sets an https SVC_PUBLIC_URL.
    dangerouslyAllowInsecureIssuerUrl: true,
  });
  const metadataPaths = new Set([new URL(resourceMetadataUrl).pathname, '/.well-known/oauth-protected-resource']);

  const verifierOf = (beforeLookup?: (known: boolean) => void): OAuthTokenVerifier => ({
    async verifyAccessToken(token): Promise<AuthInfo> {
      const found = await connections.verifyAccessToken(token, beforeLookup);
      if ('failure' in found) throw new OAuthError(OAuthErrorCode.InvalidToken, found.failure === 'revoked' ? 'The connection was revoked' : 'Unknown or expired access token');
      return {
        token,
        clientId: found.clientId,
        scopes: found.scopes,
        expiresAt: found.expiresAt,
        ...(found.audience ? { resource: new URL(found.audience) } : {}),
        extra: { found },
      };
    },
  });

  return {
    metadataResponse(request) {
      const path = new URL(request.url).pathname.replace(/\/$/, '');
      if (!metadataPaths.has(path)) return undefined;
      if (request.method === 'OPTIONS') return new Response(null, { status: 204, headers: { 'access-control-allow-origin': '*', 'access-control-allow-methods': 'GET, HEAD, OPTIONS' } });
      if (request.method !== 'GET' && request.method !== 'HEAD') return new Response(null, { status: 405, headers: { allow: 'GET, HEAD, OPTIONS' } });
      return Response.json(metadata, { headers: { 'access-control-allow-origin': '*', 'cache-control': 'public, max-age=3600' } });
    },
    challenge: () => `Bearer resource_metadata="${resourceMetadataUrl}", scope="${CONNECTION_SCOPES.join(' ')}"`,
    // A client signing in asks for what every connection gets; monitor and webhook access is ticked on approval.
    refusal(code, description, scopes = CONNECTION_SCOPES) {
      const error = new OAuthError(code === 'invalid_token' ? OAuthErrorCode.InvalidToken : OAuthErrorCode.InsufficientScope, description);
      return bearerAuthChallengeResponse(error, { requiredScopes: [...scopes], resourceMetadataUrl }).headers.get('www-authenticate') ?? 'Bearer';
    },
    async principalOf(authorization, beforeLookup) {
      const token = /^bearer\s+(\S+)$/i.exec(authorization?.trim() ?? '')?.[1];
      if (!token || KEY_PREFIX.test(token)) return undefined;
      // Parses, verifies, checks the audience is this resource and the expiry (RFC 8707: no token passthrough).
      const info = await verifyBearerToken(`Bearer ${token}`, { verifier: verifierOf(beforeLookup), expectedResource: resource, resourceMetadataUrl });
      const found = (info.extra as { found: { keyId: string; workspaceId: string; createdAt: Date; personId: string } }).found;
      return {
        keyId: found.keyId,
        kind: 'mcp_connection',
        workspaceId: found.workspaceId,
        label: 'live',
        scopes: info.scopes,
        expiresAt: new Date(info.expiresAt! * 1000),
        createdAt: found.createdAt,
        personId: found.personId,
      };
    },
  };
}
