import type { OAuthClientMetadata, OAuthClientProvider, StoredOAuthClientInformation, StoredOAuthTokens } from '@modelcontextprotocol/client';

/**
 * What an MCP client application keeps between runs, in memory: its registration, tokens and PKCE verifier. It does
 * not open a browser itself: the test takes `authorizationUrl` to headless Chromium.
 */
export class MemoryOAuthProvider implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  information: StoredOAuthClientInformation | undefined;
  saved: StoredOAuthTokens | undefined;
  /** Every token set saved, oldest first (refreshes append). */
  readonly history: StoredOAuthTokens[] = [];
  private verifier = '';
  readonly redirectUrl: string;
  readonly clientMetadataUrl: string | undefined;
  private readonly name: string;

  constructor(redirectUrl: string, name: string, clientMetadataUrl?: string) {
    this.redirectUrl = redirectUrl;
    this.name = name;
    this.clientMetadataUrl = clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return { client_name: this.name, redirect_uris: [this.redirectUrl], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: StoredOAuthClientInformation) {
    this.information = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.saved = tokens;
    this.history.push(tokens);
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}
