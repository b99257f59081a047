import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { loadGeneratedSecret } from '../db/secret-file.ts';
import type { WebhookSecrets } from './webhook-service.ts';

/** Standard Webhooks secrets: `whsec_` and the base64 of the key (32 random bytes; the scheme allows 24 to 64). */
export function generateSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export interface EncryptionKey {
  id: string;
  key: Buffer;
}

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;
export const WEBHOOK_KEYS_FILE = 'webhook-keys';

/**
 * `SVC_WEBHOOK_KEYS`: `kid:base64key[,kid:base64key…]`, each key 32 bytes. The first encrypts new secrets; every one
 * decrypts, so a key is rotated by putting a new one first and dropping the old once no secret uses it.
 */
export function parseEncryptionKeys(text: string): EncryptionKey[] {
  const keys = text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const colon = entry.indexOf(':');
      const id = entry.slice(0, colon);
      const key = Buffer.from(entry.slice(colon + 1), 'base64');
      if (colon <= 0 || !KEY_ID.test(id) || key.length !== 32) throw new Error('SVC_WEBHOOK_KEYS entries are kid:base64 with a 32-byte key (kid: letters, digits, _ or -).');
      return { id, key };
    });
  if (!keys.length) throw new Error('SVC_WEBHOOK_KEYS holds no key.');
  return keys;
}

/** The configured keys, or on the embedded default one generated into the data folder (mode 600). */
export async function loadEncryptionKeys(dataDir: string, configured: string | undefined): Promise<EncryptionKey[]> {
  if (configured) return parseEncryptionKeys(configured);
  const generated = await loadGeneratedSecret(
    dataDir,
    { name: WEBHOOK_KEYS_FILE, label: 'webhook encryption key' },
    () => `k1:${randomBytes(32).toString('base64')}`,
    (text) => {
      try {
        return parseEncryptionKeys(text).length > 0;
      } catch {
        return false;
      }
    },
  );
  return parseEncryptionKeys(generated);
}

/** AES-256-GCM at rest: `v1.<kid>.<iv>.<tag>.<ciphertext>` (base64url), so the key that sealed it is known. */
export function createWebhookSecrets(keys: readonly EncryptionKey[]): WebhookSecrets {
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
