import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Passwords are hashed with scrypt, the memory-hard KDF node:crypto ships: N = 2^15, r = 8, p = 1 takes 32 MiB and
 * tens of milliseconds per guess, which is what makes a stolen table expensive to attack. The parameters travel
 * inside the stored string (`scrypt$15$8$1$salt$hash`), so they can be raised later without breaking old hashes.
 */
const LOG2_N = 15;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;
const KEY_LENGTH = 32;
const SALT_BYTES = 16;
/** Node refuses scrypt above 32 MiB by default; 128·N·r bytes is exactly that, so allow headroom. */
const MAX_MEMORY = 64 * 1024 * 1024;
const FORMAT = /^scrypt\$(\d{1,2})\$(\d{1,2})\$(\d{1,2})\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)$/;

function derive(password: string, salt: Buffer, length: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, length, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** `log2N` is for tests whose subject is not the hash's cost (default 15, what every production hash uses). */
export async function hashPassword(password: string, log2N = LOG2_N): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, KEY_LENGTH, { N: 2 ** log2N, r: BLOCK_SIZE, p: PARALLELISM, maxmem: MAX_MEMORY });
  return `scrypt$${log2N}$${BLOCK_SIZE}$${PARALLELISM}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/** Constant-time comparison; a malformed stored hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const match = FORMAT.exec(stored);
  if (!match) return false;
  const [, logN, r, p, salt, hash] = match;
  const expected = Buffer.from(hash, 'base64');
  const key = await derive(password, Buffer.from(salt, 'base64'), expected.length, {
    N: 2 ** Number(logN),
    r: Number(r),
    p: Number(p),
    maxmem: MAX_MEMORY,
  });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/**
 * A hash of no one's password, verified against when the email is unknown so that a refusal takes as long
 * whether or not the person exists (no account enumeration by timing).
 */
export function decoyHash(log2N = LOG2_N): string {
  return `scrypt$${log2N}$${BLOCK_SIZE}$${PARALLELISM}$${Buffer.alloc(SALT_BYTES).toString('base64')}$${Buffer.alloc(KEY_LENGTH).toString('base64')}`;
}
