import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { DashboardRequest } from './dashboard-http.ts';

/**
 * Every form carries a token a page of another site cannot know: for a signed-in person an HMAC of their session
 * token (which only the HttpOnly cookie holds), for the sign-in and sign-up forms a random value also set as a
 * cookie (double submit). Browsers' own signals (`Sec-Fetch-Site`, `Origin`) refuse cross-site posts first.
 */
export const CSRF_FIELD = 'csrf';

export function sessionCsrfToken(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('dashboard form').digest('base64url');
}

export function newFormToken(): string {
  return randomBytes(24).toString('base64url');
}

function sameHost(origin: string, host: string | undefined): boolean {
  try {
    return host !== undefined && new URL(origin).host === host;
  } catch {
    return false;
  }
}

/** A post a browser says came from another site (or a sandboxed page). */
export function crossSite(request: DashboardRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') return true;
  const origin = request.headers.origin;
  return origin !== undefined && !sameHost(origin, request.headers['x-forwarded-host']?.toString() ?? request.headers.host);
}

/** The form's token matches the expected one (constant time); a missing one never matches. */
export function formTokenMatches(request: DashboardRequest, expected: string | undefined): boolean {
  const given = request.form.get(CSRF_FIELD);
  if (!given || !expected) return false;
  const left = Buffer.from(given);
  const right = Buffer.from(expected);
  return left.length === right.length && timingSafeEqual(left, right);
}
