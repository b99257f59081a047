import { IdentityError, WorkspaceLimitReached } from '../adapters/identity/identity-error.ts';
import type { MemberWorkspace } from '../adapters/people/person-store.ts';
import { staleForm } from './account-routes.ts';
import type { DashboardDeps } from './dashboard-deps.ts';
import { page, redirect, type DashboardRequest, type DashboardResponse } from './dashboard-http.ts';
import { html } from './html.ts';
import { MessagePage } from './pages/account-pages.ts';
import { WorkspacesPage } from './pages/workspaces-page.ts';
import { genuinePost, signedInPerson, signInRedirect, type SignedIn } from './signed-in.ts';

export type Params = Record<string, string | undefined>;
export type PersonHandler = (request: DashboardRequest, signedIn: SignedIn, params: Params) => Promise<DashboardResponse>;
export type WorkspaceHandler = (request: DashboardRequest, signedIn: SignedIn, workspace: MemberWorkspace, params: Params) => Promise<DashboardResponse>;

export function notFound(signedIn?: SignedIn): DashboardResponse {
  return page(html`<${MessagePage} title="Not found" message="There is no such page, or it belongs to a workspace you are not a member of." signedIn=${signedIn} />`, 404);
}

/**
 * Pages of a signed-in person: without a session a GET goes to the sign-in page (and comes back), a POST is
 * refused; every POST must carry the session's form token.
 */
export function forPerson(deps: DashboardDeps, handler: PersonHandler) {
  return async (request: DashboardRequest, params: Params): Promise<DashboardResponse> => {
    const signedIn = await signedInPerson(request, deps.people);
    if (!signedIn) return request.method === 'GET' ? signInRedirect(request.url.pathname + request.url.search) : staleForm();
    if (request.method === 'POST' && !genuinePost(request, signedIn)) return staleForm();
    return handler(request, signedIn, params);
  };
}

/** Pages of one workspace: only its members see them; anyone else gets the same 404 as for no workspace at all. */
export function forMember(deps: DashboardDeps, handler: WorkspaceHandler) {
  return forPerson(deps, async (request, signedIn, params) => {
    const workspace = (await deps.people.workspaces(signedIn.person.id)).find((candidate) => candidate.id === params.workspaceId);
    if (!workspace) return notFound(signedIn);
    return handler(request, signedIn, workspace, params);
  });
}

export function workspaceRoutes(deps: DashboardDeps) {
  return {
    list: forPerson(deps, async (_request, signedIn) => page(html`<${WorkspacesPage} signedIn=${signedIn} workspaces=${await deps.people.workspaces(signedIn.person.id)} />`)),

    create: forPerson(deps, async (request, signedIn) => {
      try {
        const workspace = await deps.people.createWorkspace(signedIn.person.id, request.form.get('name') ?? '');
        return redirect(`/dashboard/workspaces/${workspace.id}/keys`);
      } catch (error) {
        if (!(error instanceof IdentityError) && !(error instanceof WorkspaceLimitReached)) throw error;
        const workspaces = await deps.people.workspaces(signedIn.person.id);
        return page(html`<${WorkspacesPage} signedIn=${signedIn} workspaces=${workspaces} error=${error.message} />`, error instanceof WorkspaceLimitReached ? 409 : 400);
      }
    }),
  };
}
