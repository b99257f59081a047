import { errors } from 'oidc-provider';

/** Redirect URIs one client may register: MCP clients register one to three (Cursor three, VS Code two). */
export const MAX_REDIRECT_URIS = 10;
/**
 * Bytes of one client's metadata as JSON, as it is stored: what MCP clients register is well under 1 KB, and ten long
 * redirect URIs still fit. Before, a registration of up to oidc-provider's 56 KB body was stored whole.
 */
export const MAX_CLIENT_METADATA_BYTES = 8 * 1024;

/**
 * For the client metadata hook: refuses too many redirect URIs (`invalid_redirect_uri`: oidc-provider answers so for a
 * description starting with `redirect_uris`) and metadata too large to keep (`invalid_client_metadata`, RFC 7591
 * 3.2.2), on a client being accepted: at registration (oidc-provider hands the hook the request only then) or from a
 * client ID metadata document (its client_id is the document's https URL; fetched, never stored). Open registration
 * stores every client it accepts, so neither may grow without bound. A client read back from storage was accepted
 * before these bounds and keeps working: checking it again would fail its connection's refresh and sign-in with
 * invalid_client_metadata, unannounced (commit review 9).
 */
export function refuseOversizedMetadata(ctx: unknown, metadata: Record<string, unknown>): void {
  const fromDocument = typeof metadata.client_id === 'string' && metadata.client_id.startsWith('https://');
  if (ctx === undefined && !fromDocument) return;
  const uris = metadata.redirect_uris;
  if (Array.isArray(uris) && uris.length > MAX_REDIRECT_URIS) {
    throw new errors.InvalidClientMetadata(`redirect_uris: at most ${MAX_REDIRECT_URIS} may be registered, not ${uris.length}`);
  }
  const bytes = Buffer.byteLength(JSON.stringify(metadata));
  if (bytes > MAX_CLIENT_METADATA_BYTES) {
    throw new errors.InvalidClientMetadata(`the client metadata takes ${bytes} bytes as JSON; at most ${MAX_CLIENT_METADATA_BYTES} may be registered`);
  }
}
