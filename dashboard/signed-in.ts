import type { PersonSession, PersonStore } from '../adapters/people/person-store.ts';
import { crossSite, formTokenMatches, sessionCsrfToken } from './csrf.ts';
import { redirect, type DashboardRequest, type DashboardResponse } from './dashboard-http.ts';
import { readCookie, SESSION_COOKIE } from './session-cookie.ts';

/** The person behind the request's session cookie, with the token their forms must carry. */
export interface SignedIn extends PersonSession {
  csrfToken: string;
}

export const SIGN_IN_PATH = '/dashboard/sign-in';

export async function signedInPerson(request: DashboardRequest, people: PersonStore): Promise<SignedIn | null> {
  const token = readCookie(request, SESSION_COOKIE);
  if (!token) return null;
  const session = await people.session(token);
  return session ? { ...session, csrfToken: sessionCsrfToken(token) } : null;
}

/** Only paths of this service: an open redirect would let a link send a person anywhere after signing in. */
export function safeNext(next: string | null | undefined, fallback = '/dashboard/workspaces'): string {
  return next && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : fallback;
}

/** Sends the browser to the sign-in page, which brings it back to `next` afterwards. */
export function signInRedirect(next: string): DashboardResponse {
  return redirect(`${SIGN_IN_PATH}?${new URLSearchParams({ next: safeNext(next) })}`);
}

/** A signed-in person's form post is genuine: same site, and the token of their session. */
export function genuinePost(request: DashboardRequest, signedIn: SignedIn): boolean {
  return !crossSite(request) && formTokenMatches(request, signedIn.csrfToken);
}
