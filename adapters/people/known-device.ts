import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** How long a browser stays known after it signed in: the device cookie's lifetime, and the token's. */
export const KNOWN_DEVICE_TTL_MS = 180 * 24 * 3_600_000;

/**
 * A browser the person signed in from (OWASP's "device cookie"): a token only this service could have made, bound to
 * the email and to the password's hash, which also keys it, so it needs no secret of its own, no table, and every
 * token ends with the password. Its failed sign-ins are counted on their own (sign-in-throttle.ts), so guesses from
 * anywhere else cannot lock the owner's own browser out.
 */
function mac(passwordHash: string, email: string, nonce: string, issuedMs: number): Buffer {
  return createHmac('sha256', passwordHash).update(`known device\n${email}\n${nonce}\n${issuedMs}`).digest();
}

export function knownDeviceToken(passwordHash: string, email: string, now: Date): string {
  const nonce = randomBytes(16).toString('base64url');
  const issuedMs = now.getTime();
  return `${nonce}.${issuedMs}.${mac(passwordHash, email, nonce, issuedMs).toString('base64url')}`;
}

/** The device's id (its nonce) when `token` is a live token of this person and password; undefined otherwise. */
export function knownDevice(token: string | undefined, passwordHash: string, email: string, now: Date): string | undefined {
  const [nonce, issued, given, ...rest] = token?.split('.') ?? [];
  if (!nonce || !issued || !given || rest.length || !/^[0-9]{1,15}$/.test(issued)) return undefined;
  const issuedMs = Number(issued);
  if (issuedMs > now.getTime() || now.getTime() - issuedMs >= KNOWN_DEVICE_TTL_MS) return undefined;
  const expected = mac(passwordHash, email, nonce, issuedMs);
  const sent = Buffer.from(given, 'base64url');
  return sent.length === expected.length && timingSafeEqual(sent, expected) ? nonce : undefined;
}
