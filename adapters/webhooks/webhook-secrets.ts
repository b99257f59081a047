import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { loadKeyring, type Key } from '../db/keyring.ts';
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
