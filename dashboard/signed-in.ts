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

/** Stands for this service's origin: any origin works, since only a result on the same origin is kept. */
const OWN_ORIGIN = 'http://dashboard.invalid';
/** C0 controls, space, DEL and backslash: browsers drop or rewrite them (`/<TAB>/evil` is `//evil`), and CR/LF/NUL cannot be sent in a header. */
const UNSAFE_IN_NEXT = /[\u0000-\u0020\u007f\\]/;

/**
 * Only paths of this service: an open redirect would let a link send a person anywhere after signing in. `next` is
 * read as the browser would read it (WHATWG URL against this origin) and kept only when it stays on the origin; the
 * parsed path, query and fragment are sent back, never the raw string.
 */
export function safeNext(next: string | null | undefined, fallback = '/dashboard/workspaces'): string {
  if (!next || !next.startsWith('/') || UNSAFE_IN_NEXT.test(next)) return fallback;
  const url = URL.parse(next, OWN_ORIGIN);
  if (url?.origin !== OWN_ORIGIN) return fallback;
  const path = `${url.pathname}${url.search}${url.hash}`;
  // `/.//evil` parses to the path `//evil`, which a browser would read as another host.
  return path.startsWith('//') ? fallback : path;
}

/** Sends the browser to the sign-in page, which brings it back to `next` afterwards. */
export function signInRedirect(next: string): DashboardResponse {
  return redirect(`${SIGN_IN_PATH}?${new URLSearchParams({ next: safeNext(next) })}`);
}

/** A signed-in person's form post is genuine: same site, and the token of their session. */
export function genuinePost(request: DashboardRequest, signedIn: SignedIn): boolean {
  return !crossSite(request) && formTokenMatches(request, signedIn.csrfToken);
}
