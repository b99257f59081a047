import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * API key secrets: `svc_<label>_<33 base62 chars>` carrying 192 random bits. Only the SHA-256 of the whole
 * secret is stored; the secret itself is shown once. A secret-space this large needs no slow hash: nobody
 * can enumerate 2^192 candidates, and a fast hash keeps authentication cheap on every request.
 */
export const KEY_LABELS = ['live', 'test'] as const;
export type KeyLabel = (typeof KEY_LABELS)[number];

const RANDOM_BYTES = 24;
/** ceil(192 / log2(62)) = 33: every 192-bit value fits, so the body has a fixed length. */
const BODY_LENGTH = 33;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_PATTERN = /^svc_(live|test)_[0-9A-Za-z]{33}$/;
/**
 * How much of the secret is kept for display in key lists (`svc_live_AbCdEfGhIjK`): the label plus 11 random base62
 * characters, about 65 bits, so two keys of an account never show the same prefix (3 characters, 18 bits, did).
 */
export const DISPLAY_PREFIX_LENGTH = 20;

export interface GeneratedKey {
  secret: string;
  hash: string;
  prefix: string;
}

export function generateKeySecret(label: KeyLabel): GeneratedKey {
  const secret = `svc_${label}_${toBase62(randomBytes(RANDOM_BYTES))}`;
  return { secret, hash: hashKeySecret(secret), prefix: displayPrefix(secret) };
}

/** Strict syntactic check, done before any database lookup so garbage never reaches the store. */
export function parseKeySecret(candidate: string): { label: KeyLabel } | null {
  const match = KEY_PATTERN.exec(candidate);
  return match ? { label: match[1] as KeyLabel } : null;
}

export function hashKeySecret(secret: string): string {
  // One-shot: no Hash object per call (every authenticated call hashes its key).
  return hash('sha256', secret, 'hex');
}

/** Constant-time equality of two hex digests, so verification time does not depend on where they differ. */
export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}

export function displayPrefix(secret: string): string {
  return secret.slice(0, DISPLAY_PREFIX_LENGTH);
}

function toBase62(bytes: Buffer): string {
  let value = BigInt(`0x${bytes.toString('hex')}`);
  let out = '';
  while (value > 0n) {
    out = BASE62[Number(value % 62n)] + out;
    value /= 62n;
  }
  return out.padStart(BODY_LENGTH, '0');
}
