import { parseCookie, stringifySetCookie } from 'cookie';
import type { DashboardRequest } from './dashboard-http.ts';

/**
 * The session cookie: HttpOnly (no script reads it), SameSite=Lax (sent on top-level navigations, which the OAuth
 * approval screen needs when a client opens it, never on cross-site posts) and, over https, Secure with the
 * `__Host-` prefix (bound to this host and path /).
 */
function cookieName(base: string, secure: boolean): string {
  return secure ? `__Host-${base}` : base;
}

export const SESSION_COOKIE = 'svc_session';
/** A browser the person signed in from (adapters/people/known-device.ts): its failed sign-ins are counted apart. */
export const DEVICE_COOKIE = 'svc_device';
/** The anonymous forms' CSRF cookie (double submit): sign-in and sign-up happen before any session exists. */
export const FORM_COOKIE = 'svc_form';

export function readCookie(request: DashboardRequest, base: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  return parseCookie(header)[cookieName(base, request.secure)];
}

export function setCookie(request: DashboardRequest, base: string, value: string, maxAgeSeconds: number): string {
  return stringifySetCookie({
    name: cookieName(base, request.secure),
    value,
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: request.secure,
    maxAge: maxAgeSeconds,
  });
}

export function clearCookie(request: DashboardRequest, base: string): string {
  return setCookie(request, base, '', 0);
}
