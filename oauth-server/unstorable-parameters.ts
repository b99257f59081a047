import { errors } from 'oidc-provider';
import { isStorableJson } from '../adapters/db/storable-text.ts';
import type { OAuthModelAdapter } from '../adapters/oauth/oauth-model-adapter.ts';

/**
 * Parameters holding what the database cannot store (U+0000, a lone surrogate) are the request's fault, answered as
 * the RFCs say instead of failing as the record is saved (a 500): client metadata with `invalid_client_metadata`
 * (RFC 7591 3.2.2), anything else a record would keep (an authorization's `state`, `nonce`, …) with
 * `invalid_request` (RFC 6749 4.1.2.1: back to the client's redirect URI once that is known good).
 */
const REFUSAL = 'must not contain U+0000 or a lone surrogate';

/** For the client metadata hook: refuses the first member holding such a character, naming it. */
export function refuseUnstorableMetadata(metadata: Record<string, unknown>): void {
  const member = Object.keys(metadata).find((name) => !isStorableJson(metadata[name]));
  if (member) throw new errors.InvalidClientMetadata(`${member} ${REFUSAL}`);
}

/** The adapter, refusing a record that would keep such a character as an invalid request. */
export function refusingUnstorable(adapter: (kind: string) => OAuthModelAdapter): (kind: string) => OAuthModelAdapter {
  return (kind) => {
    const model = adapter(kind);
    return {
      ...model,
      upsert(id, payload, expiresIn) {
        if (!isStorableJson(payload)) throw new errors.InvalidRequest(`a request parameter ${REFUSAL}`);
        return model.upsert(id, payload, expiresIn);
      },
    };
  };
}
