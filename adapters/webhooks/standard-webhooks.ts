import { createHmac, randomBytes } from 'node:crypto';

/** Standard Webhooks signing: `v1,` and the base64 HMAC-SHA256, keyed by the secret's decoded bytes, of `id.timestamp.body`. */
export function signatureOf(secret: string, eventId: string, timestamp: Date, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const seconds = Math.floor(timestamp.getTime() / 1000);
  return `v1,${createHmac('sha256', key).update(`${eventId}.${seconds}.${body}`).digest('base64')}`;
}

/** The three headers a Standard Webhooks receiver verifies. */
export function signedHeaders(secret: string, eventId: string, timestamp: Date, body: string): Record<string, string> {
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': signatureOf(secret, eventId, timestamp, body),
  };
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** `evt_` and a 26-character ULID: time-ordered, unique, the same on every attempt of a delivery. */
export function newEventId(now: Date = new Date()): string {
  let time = now.getTime();
  let head = '';
  for (let i = 0; i < 10; i++) {
    head = CROCKFORD[time % 32] + head;
    time = Math.floor(time / 32);
  }
  const tail = [...randomBytes(16)].map((byte) => CROCKFORD[byte % 32]).join('');
  return `evt_${head}${tail}`;
}
