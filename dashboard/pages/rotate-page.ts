import type { ApiKeySummary } from '../../adapters/identity/identity-store.ts';
import type { MemberWorkspace } from '../../adapters/people/person-store.ts';
import { html, type View } from '../html.ts';
import { CsrfField, ErrorBox, Layout } from '../layout.ts';
import type { SignedIn } from '../signed-in.ts';
import { formatDate } from './format.ts';
import { EXPIRY_CHOICES, DEFAULT_EXPIRY, keyStatus, SecretOnce } from './keys-page.ts';

const STEPS = ['Create a new key with the same scopes.', 'Deploy it, and confirm through /v1/whoami that traffic moved to it.', 'Revoke the old key.'];

function Steps({ at }: { at: number }): View {
  return html`<ol class="steps">
    ${STEPS.map((step, index) => html`<li>${index < at ? html`<s>${step}</s>` : index === at ? html`<strong>${step}</strong>` : step}</li>`)}
  </ol>`;
}

interface RotationView {
  signedIn: SignedIn;
  workspace: MemberWorkspace;
  old: ApiKeySummary;
}

function nav(workspace: MemberWorkspace) {
  return { id: workspace.id, name: workspace.name, current: 'keys' as const };
}

/** Step 1: the replacement gets the old key's scopes and label; only its lifetime is chosen here. */
export function RotateStartPage({ signedIn, workspace, old, error }: RotationView & { error?: string }): View {
  return html`<${Layout} title="Rotate a key" signedIn=${signedIn} workspace=${nav(workspace)}>
    <h1>Rotate “${old.name}”</h1>
    <${Steps} at=${0} />
    <${ErrorBox} message=${error} />
    <form class="card" method="post" action=${`/dashboard/workspaces/${workspace.id}/keys/${old.keyId}/rotate`}>
      <${CsrfField} token=${signedIn.csrfToken} />
      <p>The new key gets the same label (<code>${old.label}</code>) and scopes (<code>${old.scopes.join(' ')}</code>) as <code>${old.prefix}…</code>.</p>
      <label for="key-expiry">Expires</label>
      <select id="key-expiry" name="expiry">
        ${EXPIRY_CHOICES.map(([value, text]) => html`<option value=${value} selected=${value === DEFAULT_EXPIRY}>${text}</option>`)}
      </select>
      <div class="actions"><button type="submit">Create the new key</button> <a href=${`/dashboard/workspaces/${workspace.id}/keys`}>Cancel</a></div>
    </form>
  <//>`;
}

/**
 * Steps 2 and 3: both keys with their last use, so the person sees traffic move before revoking the old key. When
 * the new key was just created its secret is shown here, once.
 */
export function RotateStatusPage({
  signedIn,
  workspace,
  old,
  replacement,
  secret,
  now,
  baseUrl,
}: RotationView & { replacement: ApiKeySummary; secret?: string; now: Date; baseUrl: string }): View {
  const moved = replacement.lastUsedAt !== null;
  const oldActive = keyStatus(old, now) === 'active';
  const statusPath = `/dashboard/workspaces/${workspace.id}/keys/${old.keyId}/rotate/${replacement.keyId}`;
  return html`<${Layout} title="Rotate a key" signedIn=${signedIn} workspace=${nav(workspace)}>
    <h1>Rotate “${old.name}”</h1>
    <${Steps} at=${oldActive ? (moved ? 2 : 1) : 3} />
    ${secret ? html`<${SecretOnce} secret=${secret} baseUrl=${baseUrl} />` : null}
    <div class="card">
      <p>Deploy the new key, then check that your deployment uses it: <code>/v1/whoami</code> answers with the <code>keyId</code> of the key that made the call (new: <code>${replacement.keyId}</code>). Last use is recorded to the minute; reload this page to refresh it.</p>
      <table class="rotation">
        <thead><tr><th></th><th>Prefix</th><th>Key id</th><th>Last used</th><th>Status</th></tr></thead>
        <tbody>
          <tr data-key-id=${old.keyId}><td>old</td><td class="mono">${old.prefix}…</td><td class="mono">${old.keyId}</td><td class="last-used">${formatDate(old.lastUsedAt, 'never')}</td><td>${keyStatus(old, now)}</td></tr>
          <tr data-key-id=${replacement.keyId}><td>new</td><td class="mono">${replacement.prefix}…</td><td class="mono">${replacement.keyId}</td><td class="last-used">${formatDate(replacement.lastUsedAt, 'never')}</td><td>${keyStatus(replacement, now)}</td></tr>
        </tbody>
      </table>
      <p class=${moved ? '' : 'muted'}>${moved ? 'Traffic reached the new key.' : 'The new key has not been used yet.'}</p>
    </div>
    ${oldActive
      ? html`<form method="post" action=${`/dashboard/workspaces/${workspace.id}/keys/${old.keyId}/revoke`}>
          <${CsrfField} token=${signedIn.csrfToken} />
          <input type="hidden" name="next" value=${statusPath} />
          <button class="danger" type="submit">Revoke the old key ${old.prefix}…</button>
        </form>`
      : html`<div class="notice" role="status">Rotation complete: the old key is ${keyStatus(old, now)}.</div>
          <p><a href=${`/dashboard/workspaces/${workspace.id}/keys`}>Back to the keys</a></p>`}
  <//>`;
}
