import type { IncomingMessage, ServerResponse } from 'node:http';
import Provider, { errors, interactionPolicy, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import { REGISTRATION_ACCESS_TOKEN_TTL_S, type OAuthModelAdapter } from '../adapters/oauth/oauth-model-adapter.ts';
import type { OAuthServerKeys } from '../adapters/oauth/server-keys.ts';
import { SCOPES } from '../adapters/identity/scopes.ts';
import { messagePage, PAGE_HEADERS } from './approval-page.ts';
import { refuseOversizedMetadata } from './client-metadata-bounds.ts';
import { redirectUriMetadata } from './redirect-uri-policy.ts';
import { boundAuthorizationRequests } from './authorization-request-check.ts';
import { limitClientRegistrations } from './registration-limit-check.ts';
import { refuseForeignTokenResource, type ClientCorsPolicy } from './token-resource-check.ts';
import { refuseUnstorableMetadata, refusingUnstorable } from './unstorable-parameters.ts';

/** Where the authorization server's own endpoints live under the service's listener. */
export const OAUTH_PREFIX = '/oauth';
export const INTERACTION_PREFIX = `${OAUTH_PREFIX}/interaction/`;

/**
 * Access tokens are short-lived and refreshed by the client; each refresh token lives 30 days from its issue, and a
 * rotated one starts a new 30 days, so a connection refreshed within that lasts until revoked.
 */
const ACCESS_TOKEN_TTL_S = 3600;
const REFRESH_TOKEN_TTL_S = 30 * 86_400;
/** oidc-provider's own rule for clients that authenticate: their refresh token is rotated only near its end. */
const CONFIDENTIAL_ROTATION_PERCENT = 70;

export interface AuthorizationServerOptions {
  /** The service's public base URL: the issuer (RFC 8414 / RFC 9207 `iss`). */
  issuer: string;
  /** The one protected resource: `{issuer}/mcp`, the audience of every access token. */
  resource: string;
  adapter: (kind: string) => OAuthModelAdapter;
  keys: OAuthServerKeys;
  /** How client ID metadata documents are fetched; tests pass one that trusts their loopback server's certificate. */
  fetch?: (url: URL | string, init: RequestInit) => Promise<Response>;
  /** Seconds an address must wait before registering another client (0: go on). */
  registrationWait: (address: string) => Promise<number>;
  /** Seconds an address must wait before making another authorization request (0: go on). */
  authorizationWait: (address: string) => Promise<number>;
  /** The dashboard session's lifetime: the authorization server's own session never lasts longer. */
  sessionTtlSeconds: number;
  /** The person signed in to the dashboard in the browser that sent `req`, if any. */
  signedInAccount: (req: IncomingMessage) => Promise<string | undefined>;
}

/** A browser-based public client (the Inspector in a page) may call the token endpoint from its own redirect URIs' origin. */
const allowsOrigin: ClientCorsPolicy = (origin, client) =>
  client.clientAuthMethod === 'none' && (client.redirectUris ?? []).some((uri) => URL.parse(uri)?.origin === origin);

/**
 * The authorization server's session only stands for the dashboard's: once that has ended (expired, signed out) or
 * another person signed in, an authorization asks for a sign-in again instead of silently issuing a code.
 */
function interactionsPolicy(signedInAccount: AuthorizationServerOptions['signedInAccount']) {
  const policy = interactionPolicy.base();
  policy.get('login')!.checks.add(
    new interactionPolicy.Check('dashboard_session', 'the dashboard sign-in has ended', 'login_required', async (ctx) => {
      const account = ctx.oidc.session!.accountId;
      return account !== undefined && (await signedInAccount(ctx.req)) !== account;
    }),
  );
  return policy;
}

/**
 * The MCP sign-in's authorization server, on oidc-provider: authorization code with PKCE (S256 only, always),
 * resource indicators bound to `/mcp`, opaque access tokens (looked up once, then cached until their connection changes, so revocation is immediate),
 * rotating refresh tokens (a connection lasts as long as its client keeps refreshing), dynamic client registration
 * and client ID metadata documents. People sign in and approve on our own interaction pages (`/oauth/interaction/:uid`).
 */
export function createAuthorizationServer(options: AuthorizationServerOptions): Provider {
  const { issuer, resource } = options;
  const configuration: Configuration = {
    adapter: refusingUnstorable(options.adapter) as unknown as Configuration['adapter'],
    jwks: options.keys.jwks as Configuration['jwks'],
    cookies: { keys: options.keys.cookieKeys },
    routes: {
      authorization: `${OAUTH_PREFIX}/authorize`,
      token: `${OAUTH_PREFIX}/token`,
      registration: `${OAUTH_PREFIX}/register`,
      revocation: `${OAUTH_PREFIX}/revoke`,
      jwks: `${OAUTH_PREFIX}/jwks`,
    },
    // Clients register the scopes they will ask for (the MCP client sends the challenge's); resource scopes must be known here too.
    scopes: ['offline_access', ...SCOPES],
    clientDefaults: { grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none', id_token_signed_response_alg: 'ES256' },
    // OAuth 2.1 has the authorization code flow only: no implicit or hybrid response types, so none are advertised.
    responseTypes: ['code'],
    // Every client, confidential or public, proves possession of its code (S256 is the only method oidc-provider 9 has).
    pkce: { required: () => true },
    // An MCP client registers the exact loopback or https URI it will use; nothing is matched loosely.
    allowOmittingSingleRegisteredRedirectUri: false,
    // https, http on loopback or a native app's own scheme; no wildcards. The hook sees the whole metadata: nothing
    // in it may hold what cannot be stored, nor (in a client being accepted) more than a client needs.
    extraClientMetadata: {
      properties: redirectUriMetadata.properties,
      validator: (ctx, key, value, metadata) => {
        refuseOversizedMetadata(ctx, metadata);
        refuseUnstorableMetadata(metadata);
        redirectUriMetadata.validator!(ctx, key, value, metadata);
      },
    },
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL_S,
      AuthorizationCode: 60,
      Interaction: 3600,
      Session: options.sessionTtlSeconds,
      // The approval's first 30 days: the storage adapter extends a grant to the end of each refresh token saved for it.
      Grant: REFRESH_TOKEN_TTL_S,
      RefreshToken: REFRESH_TOKEN_TTL_S,
      RegistrationAccessToken: REGISTRATION_ACCESS_TOKEN_TTL_S,
    },
    // Public clients rotate on every use, confidential ones once 70 % of the token's life has passed. oidc-provider's
    // default rule also stops rotating after a year, when the last token then simply runs out 30 days later: a
    // connection would end however often it refreshed. (Sender-constrained tokens, which that rule never rotates for
    // public clients, are not issued here: DPoP and mTLS are off.)
    rotateRefreshToken: (ctx) =>
      ctx.oidc.client!.clientAuthMethod === 'none' || ctx.oidc.entities.RefreshToken!.ttlPercentagePassed() >= CONFIDENTIAL_ROTATION_PERCENT,
    // A connection lasts until it is revoked, not as long as the browser session that approved it.
    expiresWithSession: async () => false,
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    interactions: { policy: interactionsPolicy(options.signedInAccount), url: async (_ctx, interaction) => `${INTERACTION_PREFIX}${interaction.uid}` },
    clientBasedCORS: (_ctx, origin, client) => allowsOrigin(origin, client),
    // Errors that cannot go back to the client (a wrong redirect URI, an unknown client) are shown to the person.
    renderError: async (ctx, out) => {
      ctx.set(PAGE_HEADERS);
      ctx.body = messagePage('This sign-in cannot continue', `${out.error}: ${out.error_description ?? 'start again from your MCP client.'}`);
    },
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
    features: {
      devInteractions: { enabled: false },
      // /mcp takes Bearer tokens and verifies no DPoP proof, so tokens are never DPoP-bound (a proof sent is ignored).
      dPoP: { enabled: false },
      registration: { enabled: true },
      // A client revokes only its own tokens; another's is answered 200 and stays valid (RFC 7009 §2.2). oidc-provider's
      // default for public clients, said here so that it is a decision, not a default it asks to be changed.
      revocation: { enabled: true, allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId },
      userinfo: { enabled: false },
      // On by default in oidc-provider, used by no MCP client: pushed authorization requests (advertised at a path this
      // listener does not route) and RP-initiated logout (its default page, which loads Google fonts; people sign out
      // in the dashboard).
      pushedAuthorizationRequests: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      clientIdMetadataDocument: { enabled: true, ack: 'draft-02' },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => resource,
        // A client that names no resource at the token endpoint gets the one it was granted.
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx: KoaContextWithOIDC, indicator: string) => {
          if (indicator !== resource) throw new errors.InvalidTarget(`the only resource here is ${resource}`);
          return { scope: SCOPES.join(' '), audience: resource, accessTokenFormat: 'opaque', accessTokenTTL: ACCESS_TOKEN_TTL_S };
        },
      },
    } as Configuration['features'],
    ...(options.fetch ? { fetch: options.fetch as Configuration['fetch'] } : {}),
  };
  const provider = new Provider(issuer, configuration);
  provider.use(limitClientRegistrations(configuration.routes!.registration!, options.registrationWait));
  provider.use(boundAuthorizationRequests(configuration.routes!.authorization!, options.authorizationWait));
  provider.use(refuseForeignTokenResource({ tokenPath: configuration.routes!.token!, resource, clients: provider.Client, allowsOrigin }));
  // Behind a TLS-terminating proxy the public URL is https while this listener speaks http.
  provider.proxy = issuer.startsWith('https:');
  return provider;
}

/**
 * Destroys the authorization server's session of the browser that sent `req` (its signed `_session` cookie), as
 * signing out of the dashboard must, whether or not the dashboard session is still alive: nothing of the sign-in is
 * kept past a sign-out. The stale cookie then names no session, so the next authorization asks for a sign-in.
 */
export async function endProviderSession(provider: Provider, req: IncomingMessage): Promise<void> {
  // The cookie is only read here; nothing is written to the response.
  const session = await provider.Session.get(provider.createContext(req, {} as ServerResponse));
  // Without a (validly signed) cookie this is a new, never stored session: destroying it deletes nothing.
  await session.destroy();
}
