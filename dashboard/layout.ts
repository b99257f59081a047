import { html, type Children, type View } from './html.ts';
import { CSRF_FIELD } from './csrf.ts';
import type { SignedIn } from './signed-in.ts';
import { STYLESHEET_PATH } from './stylesheet.ts';

export interface WorkspaceNav {
  id: string;
  name: string;
  /** Which section is shown. */
  current: 'keys' | 'usage' | 'monitors' | 'webhooks';
}

const SECTIONS: ReadonlyArray<[WorkspaceNav['current'], string]> = [
  ['keys', 'API keys'],
  ['usage', 'Usage'],
  ['monitors', 'Monitors'],
  ['webhooks', 'Webhooks'],
];

/** The hidden field every form of a signed-in person carries. */
export function CsrfField({ token }: { token: string }): View {
  return html`<input type="hidden" name=${CSRF_FIELD} value=${token} />`;
}

function Header({ signedIn, workspace }: { signedIn?: SignedIn; workspace?: WorkspaceNav }): View {
  return html`<header class="top">
    <a class="brand" href="/dashboard">Conversation Data Service</a>
    <nav>
      ${signedIn ? html`<a href="/dashboard/workspaces" class=${workspace ? '' : 'current'}>Workspaces</a>` : null}
      ${workspace
        ? SECTIONS.map(
            ([section, label]) =>
              html`<a href=${`/dashboard/workspaces/${workspace.id}/${section}`} class=${workspace.current === section ? 'current' : ''}>${label}</a>`,
          )
        : null}
    </nav>
    ${signedIn
      ? html`<div class="who">
          <span>${signedIn.person.email}</span>
          <form class="inline" method="post" action="/dashboard/sign-out">
            <${CsrfField} token=${signedIn.csrfToken} />
            <button class="link" type="submit">Sign out</button>
          </form>
        </div>`
      : null}
  </header>`;
}

/** Every page: head, the top bar (workspace sections when inside one), the content. */
export function Layout({ title, signedIn, workspace, narrow, children }: { title: string; signedIn?: SignedIn; workspace?: WorkspaceNav; narrow?: boolean; children: Children }): View {
  return html`<html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>${workspace ? `${title} · ${workspace.name}` : title} · Conversation Data Service</title>
      <link rel="stylesheet" href=${STYLESHEET_PATH} />
    </head>
    <body>
      <${Header} signedIn=${signedIn} workspace=${workspace} />
      <main class=${narrow ? 'narrow' : ''}>${children}</main>
    </body>
  </html>`;
}

/** A form error, naming what to fix. */
export function ErrorBox({ message }: { message?: string }): View | null {
  return message ? html`<div class="error" role="alert">${message}</div>` : null;
}
