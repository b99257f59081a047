import type { PersonStore } from '../adapters/people/person-store.ts';
import { toDashboardRequest } from '../dashboard/dashboard-http.ts';
import { safeNext, signedInPerson, SIGN_IN_PATH } from '../dashboard/signed-in.ts';
import type { ApprovalPeople } from '../oauth-server/approval-people.ts';

/**
 * The approval screen signs people in through the dashboard: its session cookie (named as the dashboard names it,
 * `__Host-` under an https public URL), its sign-in page, its memberships.
 */
export function dashboardApprovalPeople(people: PersonStore, httpsPublicUrl: boolean): ApprovalPeople {
  return {
    async signedIn(req) {
      const session = await signedInPerson(toDashboardRequest(req, '', httpsPublicUrl), people);
      return session ? { personId: session.person.id, email: session.person.email } : null;
    },
    signInUrl: (next) => `${SIGN_IN_PATH}?${new URLSearchParams({ next: safeNext(next) })}`,
    workspacesOf: async (personId) => (await people.workspaces(personId)).map((workspace) => ({ id: workspace.id, name: workspace.name })),
  };
}
