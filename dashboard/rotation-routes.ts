import { IdentityError } from '../adapters/identity/identity-error.ts';
import { identityErrorStatus } from '../schema/pipeline/error-mapping.ts';
import { defaultKeyExpiry } from '../adapters/identity/identity-store.ts';
import type { DashboardDeps } from './dashboard-deps.ts';
import { page } from './dashboard-http.ts';
import { html } from './html.ts';
import { baseUrlOf } from './key-form.ts';
import { EXPIRY_CHOICES } from './pages/keys-page.ts';
import { RotateStartPage, RotateStatusPage } from './pages/rotate-page.ts';
import { forMember, notFound } from './workspace-routes.ts';
import type { keyRoutes } from './key-routes.ts';

/** The spec's rotation without downtime: create a twin of the key, confirm traffic moved, revoke the old one. */
export function rotationRoutes(deps: DashboardDeps, keys: ReturnType<typeof keyRoutes>) {
  const { identity, clock } = deps;
  // Only API keys rotate: an MCP connection has no secret to replace (its client signs in again instead).
  const apiKey = async (workspaceId: string, keyId: string | undefined) => {
    const key = await keys.keyOf(workspaceId, keyId);
    return key?.kind === 'api_key' ? key : undefined;
  };

  return {
    start: forMember(deps, async (_request, signedIn, workspace, params) => {
      const old = await apiKey(workspace.id, params.keyId);
      if (!old) return notFound(signedIn);
      return page(html`<${RotateStartPage} signedIn=${signedIn} workspace=${workspace} old=${old} />`);
    }),

    create: forMember(deps, async (request, signedIn, workspace, params) => {
      const old = await apiKey(workspace.id, params.keyId);
      if (!old) return notFound(signedIn);
      const expiry = request.form.get('expiry') ?? '';
      if (!EXPIRY_CHOICES.some(([value]) => value === expiry)) {
        return page(html`<${RotateStartPage} signedIn=${signedIn} workspace=${workspace} old=${old} error="expiry: choose one of the offered lifetimes." />`, 400);
      }
      const created = await identity
        .createApiKey({
          workspaceId: workspace.id,
          label: old.label,
          scopes: old.scopes,
          name: `${old.name} (rotated)`,
          expiresAt: expiry === 'never' ? null : defaultKeyExpiry(clock(), Number(expiry)),
          replacing: old.keyId,
        })
        .catch((error: unknown) => {
          // The workspace is over the cap even without the old key (or this key already has its twin).
          if (error instanceof IdentityError && error.kind === 'key_limit') return error;
          throw error;
        });
      if (created instanceof IdentityError) {
        return page(html`<${RotateStartPage} signedIn=${signedIn} workspace=${workspace} old=${old} error=${`key: ${created.message}`} />`, identityErrorStatus(created));
      }
      return page(
        html`<${RotateStatusPage} signedIn=${signedIn} workspace=${workspace} old=${old} replacement=${created} secret=${created.key} now=${clock()} baseUrl=${baseUrlOf(request)} />`,
        201,
      );
    }),

    status: forMember(deps, async (request, signedIn, workspace, params) => {
      const [old, replacement] = await Promise.all([apiKey(workspace.id, params.keyId), apiKey(workspace.id, params.newKeyId)]);
      if (!old || !replacement) return notFound(signedIn);
      return page(html`<${RotateStatusPage} signedIn=${signedIn} workspace=${workspace} old=${old} replacement=${replacement} now=${clock()} baseUrl=${baseUrlOf(request)} />`);
    }),
  };
}
