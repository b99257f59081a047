import { logger } from '../adapters/logging/logger.ts';
import { IdentityError } from '../adapters/identity/identity-error.ts';
import { identityErrorStatus } from '../schema/pipeline/error-mapping.ts';
import { SESSION_TTL_MS } from '../adapters/people/person-store.ts';
import { KNOWN_DEVICE_TTL_MS } from '../adapters/people/known-device.ts';
import { SignUpThrottled } from '../adapters/people/sign-in-throttle.ts';
import { crossSite, formTokenMatches, newFormToken } from './csrf.ts';
import type { DashboardDeps } from './dashboard-deps.ts';
import { page, redirect, type DashboardRequest, type DashboardResponse } from './dashboard-http.ts';
import { MessagePage, SignInPage, SignUpPage, type AccountForm } from './pages/account-pages.ts';
import { clearCookie, DEVICE_COOKIE, FORM_COOKIE, readCookie, SESSION_COOKIE, setCookie } from './session-cookie.ts';
import { genuinePost, safeNext, signedInPerson } from './signed-in.ts';
import { html } from './html.ts';

const FORM_COOKIE_SECONDS = 3_600;

/** The anonymous form's token: the one already in the browser's cookie, or a new one set with this response. */
function formToken(request: DashboardRequest): { token: string; headers: Record<string, string> } {
  const existing = readCookie(request, FORM_COOKIE);
  if (existing) return { token: existing, headers: {} };
  const token = newFormToken();
  return { token, headers: { 'set-cookie': setCookie(request, FORM_COOKIE, token, FORM_COOKIE_SECONDS) } };
}

export function staleForm(): DashboardResponse {
  return page(
    html`<${MessagePage} title="Form refused" message="This form expired or was sent from another site. Go back, reload the page and try again." />`,
    403,
  );
}

/** Anonymous forms: same site, and the field matches the form cookie (double submit). */
function genuineAnonymousPost(request: DashboardRequest): boolean {
  return !crossSite(request) && formTokenMatches(request, readCookie(request, FORM_COOKIE));
}

function minutes(seconds: number): string {
  const count = Math.ceil(seconds / 60);
  return `${count} minute${count === 1 ? '' : 's'}`;
}

function errorMessage(error: unknown): { status: number; message: string; retryAfterSeconds?: number } | null {
  if (error instanceof SignUpThrottled) {
    return { status: 429, message: `Too many sign-up attempts from this address. Try again in ${minutes(error.retryAfterSeconds)}.`, retryAfterSeconds: error.retryAfterSeconds };
  }
  if (!(error instanceof IdentityError)) return null;
  return { status: identityErrorStatus(error), message: error.message };
}

export function accountRoutes(deps: DashboardDeps) {
  const { people } = deps;

  async function startSession(request: DashboardRequest, personId: string, next: string, device?: string): Promise<DashboardResponse> {
    const session = await people.startSession(personId);
    const cookies = [setCookie(request, SESSION_COOKIE, session.token, Math.floor(SESSION_TTL_MS / 1000))];
    if (device) cookies.push(setCookie(request, DEVICE_COOKIE, device, Math.floor(KNOWN_DEVICE_TTL_MS / 1000)));
    return redirect(next, { 'set-cookie': cookies });
  }

  function signInForm(request: DashboardRequest, form: Omit<AccountForm, 'formToken'>, status = 200): DashboardResponse {
    const { token, headers } = formToken(request);
    return page(html`<${SignInPage} ...${form} formToken=${token} />`, status, headers);
  }

  function signUpForm(request: DashboardRequest, form: Omit<AccountForm, 'formToken'>, status = 200): DashboardResponse {
    const { token, headers } = formToken(request);
    return page(html`<${SignUpPage} ...${form} formToken=${token} />`, status, headers);
  }

  return {
    async showSignIn(request: DashboardRequest): Promise<DashboardResponse> {
      const next = safeNext(request.url.searchParams.get('next'));
      if (await signedInPerson(request, people)) return redirect(next);
      return signInForm(request, { next });
    },

    async signIn(request: DashboardRequest): Promise<DashboardResponse> {
      if (!genuineAnonymousPost(request)) return staleForm();
      const next = safeNext(request.form.get('next'));
      const email = request.form.get('email') ?? '';
      const result = await people.signIn({ email, password: request.form.get('password') ?? '', address: request.address, device: readCookie(request, DEVICE_COOKIE) });
      if ('person' in result) return startSession(request, result.person.id, next, result.device);
      if (result.failure === 'throttled') {
        const response = signInForm(request, { next, email, error: `Too many failed sign-ins. Try again in ${minutes(result.retryAfterSeconds)}.` }, 429);
        response.headers['retry-after'] = String(result.retryAfterSeconds);
        return response;
      }
      return signInForm(request, { next, email, error: 'Wrong email or password.' }, 401);
    },

    async showSignUp(request: DashboardRequest): Promise<DashboardResponse> {
      const next = safeNext(request.url.searchParams.get('next'));
      if (await signedInPerson(request, people)) return redirect(next);
      return signUpForm(request, { next });
    },

    async signUp(request: DashboardRequest): Promise<DashboardResponse> {
      if (!genuineAnonymousPost(request)) return staleForm();
      const next = safeNext(request.form.get('next'));
      const email = request.form.get('email') ?? '';
      const name = request.form.get('name') ?? '';
      try {
        const { person } = await people.signUp({ email, name, password: request.form.get('password') ?? '', address: request.address });
        return await startSession(request, person.id, next);
      } catch (error) {
        const refusal = errorMessage(error);
        if (!refusal) throw error;
        const response = signUpForm(request, { next, email, name, error: refusal.message }, refusal.status);
        if (refusal.retryAfterSeconds) response.headers['retry-after'] = String(refusal.retryAfterSeconds);
        return response;
      }
    },

    /**
     * Ends the authorization server's session too, even when the dashboard's has already run out (a form can then
     * carry no session token; cross-site posts are still refused). A failure to end it is logged, not shown: the
     * dashboard session is gone either way.
     */
    async signOut(request: DashboardRequest): Promise<DashboardResponse> {
      const signedIn = await signedInPerson(request, people);
      if (signedIn ? !genuinePost(request, signedIn) : crossSite(request)) return staleForm();
      if (signedIn) await people.endSession(readCookie(request, SESSION_COOKIE) ?? '');
      try {
        await deps.endOAuthSession(request.incoming);
      } catch (error) {
        logger.error({ err: error }, 'sign-out could not end the authorization server session');
      }
      return redirect('/dashboard/sign-in', { 'set-cookie': clearCookie(request, SESSION_COOKIE) });
    },
  };
}
