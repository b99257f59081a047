import { randomBytes } from 'node:crypto';
import { loadGeneratedSecret } from './secret-file.ts';

/** A secret key with the id that names it, so what it signed or sealed says which key to check it with. */
export interface Key {
  id: string;
  key: Buffer;
}

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

/**
 * `kid:base64key[,kid:base64key…]`, each key 32 bytes. The first key signs or encrypts; every key verifies or
 * decrypts, so a key is rotated by putting a new one first and dropping the old once nothing made with it remains.
 */
export function parseKeyring(text: string, variable: string): Key[] {
  const keys = text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const colon = entry.indexOf(':');
      const id = entry.slice(0, colon);
      const key = Buffer.from(entry.slice(colon + 1), 'base64');
      if (colon <= 0 || !KEY_ID.test(id) || key.length !== 32) throw new Error(`${variable} entries are kid:base64 with a 32-byte key (kid: letters, digits, _ or -).`);
      return { id, key };
    });
  if (!keys.length) throw new Error(`${variable} holds no key.`);
  return keys;
}

/** The configured keyring, or on the embedded default one key generated into the data folder (mode 600). */
export async function loadKeyring(dataDir: string, file: { name: string; label: string; variable: string }, configured: string | undefined): Promise<Key[]> {
  if (configured) return parseKeyring(configured, file.variable);
  const usable = (text: string) => {
    try {
      return parseKeyring(text, file.variable).length > 0;
    } catch {
      return false;
    }
  };
  const generated = await loadGeneratedSecret(dataDir, file, () => `k1:${randomBytes(32).toString('base64')}`, usable);
  return parseKeyring(generated, file.variable);
}
