import type { MemberWorkspace } from '../../adapters/people/person-store.ts';
import { html, type View } from '../html.ts';
import { CsrfField, ErrorBox, Layout } from '../layout.ts';
import type { SignedIn } from '../signed-in.ts';
import { formatDate } from './format.ts';

export function WorkspacesPage({ signedIn, workspaces, error }: { signedIn: SignedIn; workspaces: MemberWorkspace[]; error?: string }): View {
  return html`<${Layout} title="Workspaces" signedIn=${signedIn}>
    <h1>Workspaces</h1>
    <p class="muted">A workspace is the account: it holds the credits, API keys, monitors and webhooks. Your oldest workspace receives the monthly free credits.</p>
    <table>
      <thead><tr><th>Name</th><th>Your role</th><th>Free grant</th><th>Created</th><th></th></tr></thead>
      <tbody>
        ${workspaces.map(
          (workspace) => html`<tr>
            <td><a href=${`/dashboard/workspaces/${workspace.id}/keys`}>${workspace.name}</a><br /><span class="mono muted">${workspace.id}</span></td>
            <td>${workspace.role}</td>
            <td>${workspace.receivesFreeGrant ? 'yes' : 'no'}</td>
            <td>${formatDate(workspace.createdAt)}</td>
            <td><a href=${`/dashboard/workspaces/${workspace.id}/keys`}>Keys</a> · <a href=${`/dashboard/workspaces/${workspace.id}/usage`}>Usage</a></td>
          </tr>`,
        )}
      </tbody>
    </table>
    <h2>New workspace</h2>
    <${ErrorBox} message=${error} />
    <form class="card" method="post" action="/dashboard/workspaces">
      <${CsrfField} token=${signedIn.csrfToken} />
      <label for="name">Name</label>
      <input id="name" type="text" name="name" required maxlength="80" />
      <div class="actions"><button type="submit">Create workspace</button></div>
    </form>
  <//>`;
}
