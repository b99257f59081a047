import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createWebhookSecrets, generateSigningSecret } from '../../../adapters/webhooks/webhook-secrets.ts';

const k1 = { id: 'k1', key: randomBytes(32) };
const k2 = { id: 'k2', key: randomBytes(32) };

describe('webhook signing secrets at rest', () => {
  it('are whsec_ and the base64 of 32 random bytes', () => {
    const secret = generateSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(generateSigningSecret()).not.toBe(secret);
  });

  it('are sealed with AES-256-GCM under the first key, naming it, with a fresh IV each time', () => {
    const secrets = createWebhookSecrets([k1]);
    const secret = generateSigningSecret();
    const [a, b] = [secrets.encrypt(secret), secrets.encrypt(secret)];
    expect(a).toMatch(/^v1\.k1\.[\w-]{16}\.[\w-]{22}\.[\w-]+$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain(secret.slice(6, 20));
    expect(secrets.decrypt(a)).toBe(secret);
  });

  it('rotate: a new first key seals, the old one still opens what it sealed, and a key taken out is named', () => {
    const secret = generateSigningSecret();
    const old = createWebhookSecrets([k1]).encrypt(secret);
    const rotated = createWebhookSecrets([k2, k1]);
    expect(rotated.decrypt(old)).toBe(secret);
    expect(rotated.encrypt(secret)).toMatch(/^v1\.k2\./);
    expect(() => createWebhookSecrets([k2]).decrypt(old)).toThrow(/"k1"/);
  });

  it('refuses a ciphertext that was tampered with', () => {
    const secrets = createWebhookSecrets([k1]);
    const parts = secrets.encrypt(generateSigningSecret()).split('.');
    const sealed = Buffer.from(parts[4], 'base64url');
    sealed[0] ^= 1;
    parts[4] = sealed.toString('base64url');
    expect(() => secrets.decrypt(parts.join('.'))).toThrow();
  });
});
