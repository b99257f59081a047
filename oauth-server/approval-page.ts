import { html } from 'htm/preact';
import { render } from 'preact-render-to-string';

export interface ApprovalView {
  action: string;
  clientName: string;
  clientId: string;
  /** Where the client gets the answer (its host), so the person sees who receives access. */
  redirectHost: string;
  personEmail: string;
  workspaces: ReadonlyArray<{ id: string; name: string }>;
  error?: string;
}

/**
 * Headers of every page the sign-in shows (approval screen, messages, oidc-provider's error page): never framed, no
 * script, no other origin, as the dashboard's pages. No form-action: browsers apply it to the redirects after the
 * approval's post, and the approval ends on the client's own redirect URI.
 */
export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
} as const;

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a}
h1{font-size:1.3rem}fieldset{border:1px solid #ccc;border-radius:6px;margin:1rem 0}label{display:block;margin:.3rem 0}
.muted{color:#555;font-size:.9rem}.error{color:#a00}button{font-size:1rem;padding:.4rem 1rem;margin-right:.5rem}`;

function page(title: string, body: unknown): string {
  return `<!doctype html>${render(html`<html lang="en">
    <head><meta charset="utf-8" /><meta name="viewport" content="width=device-width" /><title>${title}</title><style>${STYLE}</style></head>
    <body>${body}</body>
  </html>`)}`;
}

/** Who is signing in, how far the client's name can be trusted, and where access goes. */
function signedInLine(view: ApprovalView): string {
  const identity = /^https:\/\//.test(view.clientId) ? `The client publishes who it is at ${view.clientId}.` : 'The client named itself when it registered.';
  return `Signed in as ${view.personEmail}. ${identity} It will receive access at ${view.redirectHost}.`;
}

/** The approval screen: which client, which workspace, and whether it may touch monitors and webhooks. */
export function approvalPage(view: ApprovalView): string {
  return page(
    `Connect ${view.clientName}`,
    html`<main>
      <h1>Connect <strong>${view.clientName}</strong> to your workspace</h1>
      <p class="muted">${signedInLine(view)}</p>
      ${view.error ? html`<p class="error" role="alert">${view.error}</p>` : null}
      <form method="post" action=${view.action}>
        <fieldset>
          <legend>Workspace</legend>
          <select name="workspaceId" aria-label="Workspace">
            ${view.workspaces.map((workspace) => html`<option value=${workspace.id}>${workspace.name}</option>`)}
          </select>
        </fieldset>
        <fieldset>
          <legend>Access</legend>
          <p>It can read both platforms and see the workspace's usage, spending its credits.</p>
          <label><input type="checkbox" name="monitors" value="on" /> Create, change and run monitors</label>
          <label><input type="checkbox" name="webhooks" value="on" /> Create, change and test webhooks</label>
        </fieldset>
        <p class="muted">It appears in the workspace's key list as “${view.clientName} (MCP)”; revoking it there disconnects it at once.</p>
        <button type="submit" name="decision" value="approve">Approve</button>
        <button type="submit" name="decision" value="deny">Deny</button>
      </form>
    </main>`,
  );
}

/** A dead end the person can understand: an expired or replayed link, or no workspace to connect. */
export function messagePage(title: string, message: string): string {
  return page(title, html`<main><h1>${title}</h1><p>${message}</p></main>`);
}
