import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { loadKeyring, type Key } from '../db/keyring.ts';
import type { SqlRunner } from '../db/sql.ts';
import type { WebhookSecrets } from './webhook-service.ts';

/** Standard Webhooks secrets: `whsec_` and the base64 of the key (32 random bytes; the scheme allows 24 to 64). */
export function generateSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export const WEBHOOK_KEYS_FILE = 'webhook-keys';

/** `SVC_WEBHOOK_KEYS`, or on the embedded default a key generated into the data folder. */
export function loadEncryptionKeys(dataDir: string, configured: string | undefined): Promise<Key[]> {
  return loadKeyring(dataDir, { name: WEBHOOK_KEYS_FILE, label: 'webhook encryption key', variable: 'SVC_WEBHOOK_KEYS' }, configured);
}

/** AES-256-GCM at rest: `v1.<kid>.<iv>.<tag>.<ciphertext>` (base64url), so the key that sealed it is known. */
export function createWebhookSecrets(keys: readonly Key[]): WebhookSecrets {
  const [current] = keys;
  const byId = new Map(keys.map((key) => [key.id, key.key]));
  return {
    generate: generateSigningSecret,
    encrypt(secret) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', current.key, iv);
      const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      return ['v1', current.id, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), sealed.toString('base64url')].join('.');
    },
    decrypt(ciphertext) {
      const [version, id, iv, tag, sealed] = ciphertext.split('.');
      const key = byId.get(id);
      if (version !== 'v1' || !key) throw new Error(`No webhook encryption key "${id}" is configured.`);
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}

/** The key id that sealed a stored secret. */
const KEY_ID_SQL = `split_part("secret_ciphertext", '.', 2)`;

/** How many stored secrets each key id seals. */
export async function sealingKeys(db: SqlRunner): Promise<Map<string, number>> {
  const rows = await db.all<{ kid: string; count: number | string }>(`select ${KEY_ID_SQL} as "kid", count(*) as "count" from "webhook" group by 1`);
  return new Map(rows.map((row) => [row.kid, Number(row.count)]));
}

/**
 * Refuses to start while a stored secret is sealed under a key id that is not configured: every delivery of that
 * webhook would otherwise fail unsigned. One grouped scan at start; the webhook table is bounded by tier ceilings.
 */
export async function checkSealingKeys(db: SqlRunner, keys: readonly Key[]): Promise<void> {
  const configured = new Set(keys.map((key) => key.id));
  for (const [kid, count] of await sealingKeys(db)) {
    if (!configured.has(kid)) {
      throw new Error(
        `${count} stored webhook secret(s) are encrypted under key id "${kid}", which SVC_WEBHOOK_KEYS does not configure: keep "${kid}" after the current key until housekeeping has re-encrypted them (docs/webhooks.md, "Rotating SVC_WEBHOOK_KEYS").`,
      );
    }
  }
}

/**
 * Re-encrypts up to `batch` secrets sealed under an older key with the current (first) one, so a rotation ends: once
 * `remaining` is 0 the old key can be removed. A secret changed meanwhile (its webhook deleted) is left alone.
 */
export async function resealSecrets(db: SqlRunner, secrets: WebhookSecrets, currentKeyId: string, batch = 100): Promise<{ resealed: number; remaining: number }> {
  const rows = await db.all<{ id: string; secret_ciphertext: string }>(`select "id", "secret_ciphertext" from "webhook" where ${KEY_ID_SQL} <> ? limit ?`, [currentKeyId, batch]);
  let resealed = 0;
  for (const row of rows) {
    const updated = await db.all<{ id: string }>(`update "webhook" set "secret_ciphertext" = ? where "id" = ? and "secret_ciphertext" = ? returning "id"`, [
      secrets.encrypt(secrets.decrypt(row.secret_ciphertext)),
      row.id,
      row.secret_ciphertext,
    ]);
    resealed += updated.length;
  }
  const [{ count }] = await db.all<{ count: number | string }>(`select count(*) as "count" from "webhook" where ${KEY_ID_SQL} <> ?`, [currentKeyId]);
  return { resealed, remaining: Number(count) };
}
