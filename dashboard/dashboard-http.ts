import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { renderDocument, type View } from './html.ts';

/** What a dashboard route sees of a request. */
export interface DashboardRequest {
  method: string;
  url: URL;
  headers: IncomingMessage['headers'];
  /** Parsed `application/x-www-form-urlencoded` body (empty for GET). */
  form: URLSearchParams;
  /** The client's address, for the sign-in throttle. */
  address: string | undefined;
  /**
   * Served over https (an https public URL, a TLS socket, or a proxy that says so): cookies get `Secure` and the
   * `__Host-` prefix.
   */
  secure: boolean;
  /** The request itself, for what reads it whole: the authorization server's own session cookie at sign-out. */
  incoming: IncomingMessage;
}

export interface DashboardResponse {
  status: number;
  headers: Record<string, string | string[]>;
  body: string;
}

/**
 * Pages load nothing but their own stylesheet, run no script, cannot be framed (clickjacking on the key and approval
 * forms) and post forms only to this origin.
 */
const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
};

/**
 * The largest body a dashboard request may send. Its largest form (sign-up: an email of 254 characters, a name of 80
 * and a password of 200, each character percent-encoded as up to 12 bytes) stays under 6 KiB; the listener's 1 MiB
 * would let anyone, signed in or not, make the process parse that much.
 */
export const FORM_BODY_BYTES = 16 * 1024;

/**
 * The most fields a form may hold; the key form, the longest, has 12. `URLSearchParams` takes time super-linear in the
 * fields (520,000 in a 1 MiB body held the event loop for seconds), so they are counted before anything parses them.
 */
export const FORM_FIELDS_MAX = 100;

const FORM_MEDIA_TYPE = /^\s*application\/x-www-form-urlencoded\b/i;

/** Whether a form body holds more than FORM_FIELDS_MAX fields, counted by their separators. */
export function hasTooManyFields(req: IncomingMessage, body: string): boolean {
  if (!FORM_MEDIA_TYPE.test(req.headers['content-type'] ?? '')) return false;
  let fields = 1;
  for (let at = body.indexOf('&'); at !== -1; at = body.indexOf('&', at + 1)) if (++fields > FORM_FIELDS_MAX) return true;
  return false;
}

/**
 * `httpsPublicUrl`: the service's public URL (SVC_PUBLIC_URL) is https, so every browser reaches it over https
 * whatever the hop to this listener says; a proxy that drops X-Forwarded-Proto must not make cookies travel in clear.
 */
export function toDashboardRequest(req: IncomingMessage, body: string, httpsPublicUrl: boolean): DashboardRequest {
  const forwardedProto = String(req.headers['x-forwarded-proto'] ?? '').split(',')[0].trim();
  const isForm = FORM_MEDIA_TYPE.test(req.headers['content-type'] ?? '');
  return {
    method: req.method ?? 'GET',
    url: new URL(req.url ?? '/', 'http://localhost'),
    headers: req.headers,
    form: new URLSearchParams(isForm ? body : ''),
    address: req.socket.remoteAddress,
    // A spoofed header can only make the cookie stricter (Secure), never weaker, so it is safe to believe here.
    secure: httpsPublicUrl || Boolean((req.socket as TLSSocket).encrypted) || forwardedProto === 'https',
    incoming: req,
  };
}

export function page(view: View, status = 200, headers: Record<string, string | string[]> = {}): DashboardResponse {
  return { status, headers: { ...PAGE_HEADERS, ...headers }, body: renderDocument(view) };
}

/** 303: after a form post the browser GETs the next page, so a reload never posts twice. */
export function redirect(location: string, headers: Record<string, string | string[]> = {}): DashboardResponse {
  return { status: 303, headers: { location, 'cache-control': 'no-store', ...headers }, body: '' };
}
