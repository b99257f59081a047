import { errors, type Configuration } from 'oidc-provider';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
/** Schemes the browser or the system handles itself: never an app's own (RFC 8252 7.1 private-use) scheme. */
const NOT_AN_APP_SCHEME = new Set(['javascript:', 'vbscript:', 'data:', 'blob:', 'file:', 'about:', 'ws:', 'wss:', 'ftp:', 'mailto:', 'tel:', 'sms:']);

/**
 * Why `uri` cannot be registered as a redirect URI (OAuth 2.1 / MCP), or undefined when it can: https; http on a
 * loopback host only; or a native app's own scheme (`cursor://…`, `com.example.app:/…`). Never a wildcard.
 */
export function redirectUriRefusal(uri: string): string | undefined {
  const url = URL.parse(uri);
  if (!url) return 'is not a URL';
  if (uri.includes('*')) return 'must not contain a wildcard (redirect URIs are matched exactly)';
  if (url.username || url.password) return 'must not contain a user name or password';
  if (uri.includes('\\')) return 'must not contain a backslash';
  if (url.port === '0') return 'must not use port 0';
  // The check reads the parsed URL; the browser is sent to the raw string. They must be the same URI, or a spelling
  // (percent-encoded host, upper case, a backslash) could pass the check and lead elsewhere. An origin without its `/` is
  // the one difference clients send that means the same.
  if (url.href !== uri && url.href !== `${uri}/`) return `must be written as ${url.href} (its normal form)`;
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:') return LOOPBACK_HOSTS.has(url.hostname) ? undefined : 'may use http only on a loopback host (127.0.0.1, [::1] or localhost)';
  return NOT_AN_APP_SCHEME.has(url.protocol) ? `must not use the ${url.protocol.slice(0, -1)} scheme` : undefined;
}

function isAppScheme(uri: string): boolean {
  const { protocol } = new URL(uri);
  return protocol !== 'https:' && protocol !== 'http:';
}

/**
 * The policy as oidc-provider's client metadata hook. Naming `redirect_uris` among the "extra" properties makes
 * oidc-provider run the validator on them for every client it builds (registered, fetched from a client ID metadata
 * document, read back from storage), before its own checks. A client registering an app scheme is a native app
 * whatever it declares (Cursor registers as `web`, and oidc-provider allows web clients http and https only), so its
 * `application_type` becomes `native`.
 */
export const redirectUriMetadata: NonNullable<Configuration['extraClientMetadata']> = {
  properties: ['redirect_uris'],
  validator: (_ctx, _key, value, metadata) => {
    // Anything but a list of strings is refused by oidc-provider's own checks.
    if (!Array.isArray(value) || !value.every((uri) => typeof uri === 'string')) return;
    for (const uri of value) {
      const refusal = redirectUriRefusal(uri);
      // A description starting with `redirect_uris` makes oidc-provider answer `invalid_redirect_uri`.
      if (refusal) throw new errors.InvalidClientMetadata(`redirect_uris: ${uri} ${refusal}`);
    }
    if (value.some(isAppScheme)) metadata.application_type = 'native';
  },
};
