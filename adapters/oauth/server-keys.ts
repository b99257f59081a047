import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import type { JsonWebKey } from 'node:crypto';
import type { SqlDb } from '../db/sql.ts';

/** The authorization server's own secrets: the key that signs what it signs, and the keys of its cookies. */
export interface OAuthServerKeys {
  jwks: { keys: JsonWebKey[] };
  cookieKeys: string[];
}

/**
 * Kept in the database rather than the data folder, so every instance on one database signs and reads cookies
 * with the same keys; the first instance to start creates them (insert-if-absent, so two starting at once agree).
 */
export async function loadOAuthServerKeys(db: SqlDb): Promise<OAuthServerKeys> {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const fresh: OAuthServerKeys = {
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: randomUUID(), alg: 'ES256', use: 'sig' }] },
    cookieKeys: [randomBytes(32).toString('base64url')],
  };
  await db.all(`insert into "oauth_model" ("kind", "id", "payload") values ('ServerKeys', 'current', ?::jsonb) on conflict do nothing`, [JSON.stringify(fresh)]);
  const [row] = await db.all<{ payload: unknown }>(`select "payload" from "oauth_model" where "kind" = 'ServerKeys' and "id" = 'current'`);
  return (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as OAuthServerKeys;
}
