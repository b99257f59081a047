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
 * `httpsPublicUrl`: the service's public URL (SVC_PUBLIC_URL) is https, so every browser reaches it over https
 * whatever the hop to this listener says; a proxy that drops X-Forwarded-Proto must not make cookies travel in clear.
 */
export function toDashboardRequest(req: IncomingMessage, body: string, httpsPublicUrl: boolean): DashboardRequest {
  const forwardedProto = String(req.headers['x-forwarded-proto'] ?? '').split(',')[0].trim();
  const isForm = /^\s*application\/x-www-form-urlencoded\b/i.test(req.headers['content-type'] ?? '');
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
