import type { IncomingMessage } from 'node:http';
import { accountRoutes } from './account-routes.ts';
import { activityRoutes } from './activity-routes.ts';
import { keyRoutes } from './key-routes.ts';
import { rotationRoutes } from './rotation-routes.ts';
import { usageRoutes } from './usage-routes.ts';
import type { DashboardDeps } from './dashboard-deps.ts';
import { readBody } from '../core/read-body.ts';
import { FORM_BODY_BYTES, FORM_FIELDS_MAX, hasTooManyFields, page, redirect, toDashboardRequest, type DashboardRequest, type DashboardResponse } from './dashboard-http.ts';
import { html } from './html.ts';
import { MessagePage } from './pages/account-pages.ts';
import { STYLESHEET, STYLESHEET_PATH } from './stylesheet.ts';
import { notFound, workspaceRoutes, type Params } from './workspace-routes.ts';
import { signedInPerson } from './signed-in.ts';

type Route = [method: 'GET' | 'POST', pattern: URLPattern, handler: (request: DashboardRequest, params: Params) => Promise<DashboardResponse>];

function route(method: 'GET' | 'POST', pathname: string, handler: Route[2]): Route {
  return [method, new URLPattern({ pathname }), handler];
}

const STYLESHEET_RESPONSE: DashboardResponse = {
  status: 200,
  headers: { 'content-type': 'text/css; charset=utf-8', 'cache-control': 'public, max-age=300', 'x-content-type-options': 'nosniff' },
  body: STYLESHEET,
};

/**
 * Every form field is stored or compared as text, and PostgreSQL (PGlite too) refuses U+0000 in text: such a post is
 * refused here, once for every form, naming the field, instead of failing at the database as a 500.
 */
function fieldWithNul(request: DashboardRequest): string | undefined {
  for (const [name, value] of request.form) if (name.includes('\u0000') || value.includes('\u0000')) return name;
  return undefined;
}

/** The dashboard at /dashboard: server-rendered pages and plain form posts, no script. */
export function createDashboard(deps: DashboardDeps) {
  const account = accountRoutes(deps);
  const workspaces = workspaceRoutes(deps);
  const keys = keyRoutes(deps);
  const rotation = rotationRoutes(deps, keys);
  const usage = usageRoutes(deps);
  const activity = activityRoutes(deps);
  const ws = '/dashboard/workspaces/:workspaceId';
  const routes: Route[] = [
    route('GET', '/dashboard{/}?', async (request) => redirect((await signedInPerson(request, deps.people)) ? '/dashboard/workspaces' : '/dashboard/sign-in')),
    route('GET', STYLESHEET_PATH, async () => STYLESHEET_RESPONSE),
    route('GET', '/dashboard/sign-in', account.showSignIn),
    route('POST', '/dashboard/sign-in', account.signIn),
    route('GET', '/dashboard/sign-up', account.showSignUp),
    route('POST', '/dashboard/sign-up', account.signUp),
    route('POST', '/dashboard/sign-out', account.signOut),
    route('GET', '/dashboard/workspaces', workspaces.list),
    route('POST', '/dashboard/workspaces', workspaces.create),
    route('GET', ws, async (_request, params) => redirect(`/dashboard/workspaces/${params.workspaceId}/keys`)),
    route('GET', `${ws}/keys`, keys.list),
    route('POST', `${ws}/keys`, keys.create),
    route('POST', `${ws}/keys/:keyId/revoke`, keys.revoke),
    route('GET', `${ws}/keys/:keyId/rotate`, rotation.start),
    route('POST', `${ws}/keys/:keyId/rotate`, rotation.create),
    route('GET', `${ws}/keys/:keyId/rotate/:newKeyId`, rotation.status),
    route('GET', `${ws}/usage`, usage.show),
    route('GET', `${ws}/monitors`, activity.monitors),
    route('GET', `${ws}/monitors/:monitorId`, activity.monitor),
    route('GET', `${ws}/webhooks`, activity.webhooks),
  ];

  return async (req: IncomingMessage): Promise<DashboardResponse> => {
    const body = await readBody(req, FORM_BODY_BYTES);
    // Closed, as the listener's own 413s: on keep-alive node would otherwise read and discard the declared body.
    if (body === undefined) return page(html`<${MessagePage} title="Form refused" message=${`The request body is over ${FORM_BODY_BYTES / 1024} KiB; no page of the dashboard posts that much.`} />`, 413, { connection: 'close' });
    if (hasTooManyFields(req, body)) {
      return page(html`<${MessagePage} title="Form refused" message=${`The form has more than ${FORM_FIELDS_MAX} fields; no page of the dashboard posts that many.`} />`, 400);
    }
    const request = toDashboardRequest(req, body, deps.httpsPublicUrl);
    const refused = fieldWithNul(request);
    if (refused !== undefined) {
      return page(html`<${MessagePage} title="Form refused" message=${`The field '${refused.replaceAll('\u0000', '')}' must not contain the NUL character (U+0000). Go back and correct it.`} />`, 400);
    }
    for (const [method, pattern, handler] of routes) {
      const match = pattern.exec({ pathname: request.url.pathname });
      if (!match) continue;
      if (method !== request.method && !(method === 'GET' && request.method === 'HEAD')) continue;
      return handler(request, match.pathname.groups);
    }
    return notFound();
  };
}

export type Dashboard = ReturnType<typeof createDashboard>;
