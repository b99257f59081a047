import { createECDH, hkdfSync, type JsonWebKey } from 'node:crypto';
import { loadKeyring, type Key } from '../db/keyring.ts';

/** The authorization server's own secrets: the keys that sign what it signs, and the keys of its cookies. */
export interface OAuthServerKeys {
  jwks: { keys: JsonWebKey[] };
  cookieKeys: string[];
}

export const OAUTH_KEYS_FILE = 'oauth-keys';

/** 32 bytes for one use of a keyring key, so the signing key and the cookie key never share material. */
function derive(key: Buffer, use: string): Buffer {
  return Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), `oauth-server:${use}`, 32));
}

/** The ES256 private key derived from one keyring key, as a JWK named by the keyring entry's id (its `kid`). */
function signingKey({ id, key }: Key): JsonWebKey {
  // A P-256 private key is a number below the curve order; about 2^-32 of 32-byte strings are not: derive again.
  for (let attempt = 0; ; attempt++) {
    const d = derive(key, `es256:${attempt}`);
    const ecdh = createECDH('prime256v1');
    try {
      ecdh.setPrivateKey(d);
    } catch {
      continue;
    }
    // Uncompressed point: 0x04, then x and y, 32 bytes each.
    const point = ecdh.getPublicKey();
    return { kty: 'EC', crv: 'P-256', d: d.toString('base64url'), x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url'), kid: id, alg: 'ES256', use: 'sig' };
  }
}

/**
 * The server's keys, derived from a keyring (`kid:base64key,…`) in its order: the first key signs tokens and cookies,
 * every key verifies them, so a key is rotated as the other keyrings are. The same keyring gives the same keys on
 * every instance and after every restart.
 */
export function oauthServerKeys(keyring: readonly Key[]): OAuthServerKeys {
  return {
    jwks: { keys: keyring.map(signingKey) },
    cookieKeys: keyring.map(({ key }) => derive(key, 'cookies').toString('base64url')),
  };
}

/** `SVC_OAUTH_KEYS`, or on the embedded default one key generated into the data folder, like the other keyrings. */
export async function loadOAuthServerKeys(dataDir: string, configured: string | undefined): Promise<OAuthServerKeys> {
  return oauthServerKeys(await loadKeyring(dataDir, { name: OAUTH_KEYS_FILE, label: 'OAuth server key', variable: 'SVC_OAUTH_KEYS' }, configured));
}
