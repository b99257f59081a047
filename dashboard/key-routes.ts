import type { ApiKeySummary } from '../adapters/identity/identity-store.ts';
import { IdentityError } from '../adapters/identity/identity-error.ts';
import { identityErrorStatus } from '../schema/pipeline/error-mapping.ts';
import type { DashboardDeps } from './dashboard-deps.ts';
import { page, redirect } from './dashboard-http.ts';
import { html } from './html.ts';
import { baseUrlOf, readKeyForm } from './key-form.ts';
import { KeyCreatedPage, KeysPage, type KeyForm, type KeyRow } from './pages/keys-page.ts';
import { safeNext } from './signed-in.ts';
import { forMember, notFound } from './workspace-routes.ts';

/** A key, or an MCP connection (no secret, so no prefix or label to show, and nothing to rotate: the client re-approves). */
export function keyRow(workspaceId: string, key: ApiKeySummary): KeyRow {
  const base = `/dashboard/workspaces/${workspaceId}/keys/${key.keyId}`;
  const shared = { ...key, id: key.keyId, revokeAction: `${base}/revoke` };
  if (key.kind === 'mcp_connection') return { ...shared, kind: 'mcp', prefix: null, label: null };
  return { ...shared, kind: 'key', rotatePath: `${base}/rotate` };
}

export function keyRoutes(deps: DashboardDeps) {
  const { identity, clock } = deps;

  async function rows(workspaceId: string): Promise<KeyRow[]> {
    return (await identity.listKeys(workspaceId)).map((key) => keyRow(workspaceId, key));
  }

  async function keyOf(workspaceId: string, keyId: string | undefined): Promise<ApiKeySummary | undefined> {
    return (await identity.listKeys(workspaceId)).find((key) => key.keyId === keyId);
  }

  return {
    keyOf,

    list: forMember(deps, async (request, signedIn, workspace) => {
      const keys = await identity.listKeys(workspace.id);
      const revokedId = request.url.searchParams.get('revoked');
      const revoked = keys.find((key) => key.keyId === revokedId);
      const notice = revoked?.revokedAt ? `Key ${revoked.prefix}… revoked: calls with it now get 401.` : undefined;
      return page(html`<${KeysPage} signedIn=${signedIn} workspace=${workspace} rows=${keys.map((key) => keyRow(workspace.id, key))} now=${clock()} form=${{}} notice=${notice} />`);
    }),

    create: forMember(deps, async (request, signedIn, workspace) => {
      const refuse = async (form: KeyForm, status = 400) =>
        page(html`<${KeysPage} signedIn=${signedIn} workspace=${workspace} rows=${await rows(workspace.id)} now=${clock()} form=${form} />`, status);
      const read = readKeyForm(request, clock());
      if ('refused' in read) return refuse(read.refused);
      try {
        const created = await identity.createApiKey({ workspaceId: workspace.id, ...read.ok });
        return page(html`<${KeyCreatedPage} signedIn=${signedIn} workspace=${workspace} secret=${created.key} name=${created.name} baseUrl=${baseUrlOf(request)} />`, 201);
      } catch (error) {
        if (!(error instanceof IdentityError)) throw error;
        return refuse({ ...read.ok, expiry: undefined, error: `${error.field ?? 'key'}: ${error.message}` }, identityErrorStatus(error));
      }
    }),

    revoke: forMember(deps, async (request, signedIn, workspace, params) => {
      const key = await keyOf(workspace.id, params.keyId);
      if (!key) return notFound(signedIn);
      await identity.revokeApiKey(key.keyId, clock());
      return redirect(safeNext(request.form.get('next'), `/dashboard/workspaces/${workspace.id}/keys?revoked=${key.keyId}`));
    }),
  };
}
