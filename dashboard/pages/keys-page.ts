import type { KeyLabel } from '../../adapters/identity/key-material.ts';
import { SCOPES } from '../../adapters/identity/scopes.ts';
import type { MemberWorkspace } from '../../adapters/people/person-store.ts';
import { html, type View } from '../html.ts';
import { CsrfField, ErrorBox, Layout } from '../layout.ts';
import type { SignedIn } from '../signed-in.ts';
import { formatDate } from './format.ts';

/**
 * One row of the key list. API keys and MCP connections (an OAuth grant, named `<client> (MCP)`) share it: a
 * connection has no prefix or label, and its revoke action is its own.
 */
export interface KeyRow {
  id: string;
  name: string;
  kind: 'key' | 'mcp';
  prefix: string | null;
  label: KeyLabel | null;
  scopes: readonly string[];
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  /** Where the Revoke button posts. */
  revokeAction: string;
  /** Where the Rotate link goes; only API keys rotate. */
  rotatePath?: string;
}

export const EXPIRY_CHOICES: ReadonlyArray<[string, string]> = [
  ['30', '30 days'],
  ['90', '90 days'],
  ['365', '1 year'],
  ['never', 'No expiry'],
];
export const DEFAULT_EXPIRY = '90';

export interface KeyForm {
  name?: string;
  label?: KeyLabel;
  scopes?: readonly string[];
  expiry?: string;
  error?: string;
}

export function keyStatus(row: Pick<KeyRow, 'revokedAt' | 'expiresAt'>, now: Date): 'revoked' | 'expired' | 'active' {
  if (row.revokedAt) return 'revoked';
  if (row.expiresAt && row.expiresAt.getTime() <= now.getTime()) return 'expired';
  return 'active';
}

function KeyTable({ rows, now, signedIn }: { rows: readonly KeyRow[]; now: Date; signedIn: SignedIn }): View {
  if (rows.length === 0) return html`<p class="muted">No keys yet.</p>`;
  return html`<table class="keys">
    <thead><tr><th>Name</th><th>Prefix</th><th>Scopes</th><th>Created</th><th>Expires</th><th>Last used</th><th>Status</th><th></th></tr></thead>
    <tbody>
      ${rows.map((row) => {
        const status = keyStatus(row, now);
        return html`<tr data-key-id=${row.id}>
          <td>${row.name} ${row.label ? html`<span class=${`badge ${row.label}`}>${row.label}</span>` : html`<span class="badge">connection</span>`}</td>
          <td class="mono">${row.prefix ? `${row.prefix}…` : '—'}</td>
          <td class="mono">${row.scopes.join(' ')}</td>
          <td>${formatDate(row.createdAt)}</td>
          <td>${formatDate(row.expiresAt, 'never')}</td>
          <td class="last-used">${formatDate(row.lastUsedAt, 'never')}</td>
          <td><span class=${`badge ${status}`}>${status}</span></td>
          <td>
            ${status === 'active'
              ? html`${row.rotatePath ? html`<a href=${row.rotatePath}>Rotate</a> ` : null}
                  <form class="inline" method="post" action=${row.revokeAction}>
                    <${CsrfField} token=${signedIn.csrfToken} />
                    <button class="danger" type="submit">Revoke</button>
                  </form>`
              : null}
          </td>
        </tr>`;
      })}
    </tbody>
  </table>`;
}

export function KeyFields({ form }: { form: KeyForm }): View {
  const scopes = new Set(form.scopes ?? ['read:social', 'usage:read']);
  return html`
    <label for="key-name">Name</label>
    <input id="key-name" type="text" name="name" maxlength="80" placeholder="e.g. production crawler" value=${form.name ?? ''} />
    <label>Label</label>
    <label class="inline"><input type="radio" name="label" value="live" checked=${(form.label ?? 'live') === 'live'} /> live (<code>svc_live_…</code>)</label>
    <label class="inline"><input type="radio" name="label" value="test" checked=${form.label === 'test'} /> test (<code>svc_test_…</code>, spends the same credits)</label>
    <label>Scopes</label>
    ${SCOPES.map((scope) => html`<label class="inline"><input type="checkbox" name="scopes" value=${scope} checked=${scopes.has(scope)} /> <code>${scope}</code></label>`)}
    <label for="key-expiry">Expires</label>
    <select id="key-expiry" name="expiry">
      ${EXPIRY_CHOICES.map(([value, text]) => html`<option value=${value} selected=${(form.expiry ?? DEFAULT_EXPIRY) === value}>${text}${value === DEFAULT_EXPIRY ? ' (default)' : ''}</option>`)}
    </select>`;
}

export function KeysPage({
  signedIn,
  workspace,
  rows,
  now,
  form,
  notice,
}: {
  signedIn: SignedIn;
  workspace: MemberWorkspace;
  rows: readonly KeyRow[];
  now: Date;
  form: KeyForm;
  notice?: string;
}): View {
  return html`<${Layout} title="API keys" signedIn=${signedIn} workspace=${{ id: workspace.id, name: workspace.name, current: 'keys' }}>
    <h1>API keys</h1>
    ${notice ? html`<div class="notice" role="status">${notice}</div>` : null}
    <p class="muted">Keys and MCP connections of <strong>${workspace.name}</strong>. A key is a bearer credential: whoever holds it spends this workspace's credits. Revoking takes effect at once.</p>
    <${KeyTable} rows=${rows} now=${now} signedIn=${signedIn} />
    <h2>Create a key</h2>
    <${ErrorBox} message=${form.error} />
    <form class="card" method="post" action=${`/dashboard/workspaces/${workspace.id}/keys`}>
      <${CsrfField} token=${signedIn.csrfToken} />
      <${KeyFields} form=${form} />
      <div class="actions"><button type="submit">Create key</button></div>
    </form>
  <//>`;
}

/** The secret, once: only its hash is kept. */
export function SecretOnce({ secret, baseUrl }: { secret: string; baseUrl: string }): View {
  return html`<div class="card">
    <p><strong>Copy this key now.</strong> It is shown only this once; the service keeps only its hash, so a lost key cannot be recovered.</p>
    <code class="secret" id="new-key">${secret}</code>
    <p class="muted">Try it: <code>curl -H "Authorization: Bearer ${secret}" ${baseUrl}/v1/whoami</code></p>
  </div>`;
}

export function KeyCreatedPage({ signedIn, workspace, secret, name, baseUrl }: { signedIn: SignedIn; workspace: MemberWorkspace; secret: string; name: string; baseUrl: string }): View {
  return html`<${Layout} title="Key created" signedIn=${signedIn} workspace=${{ id: workspace.id, name: workspace.name, current: 'keys' }}>
    <h1>Key “${name}” created</h1>
    <${SecretOnce} secret=${secret} baseUrl=${baseUrl} />
    <p><a class="button secondary" href=${`/dashboard/workspaces/${workspace.id}/keys`}>Done: back to the keys</a></p>
  <//>`;
}
