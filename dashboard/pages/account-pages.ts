import { html, type View } from '../html.ts';
import { ErrorBox, Layout } from '../layout.ts';
import { CSRF_FIELD } from '../csrf.ts';
import { PASSWORD_MIN_LENGTH } from '../../adapters/people/person-store.ts';

export interface AccountForm {
  formToken: string;
  next: string;
  email?: string;
  name?: string;
  error?: string;
}

export function SignInPage({ formToken, next, email, error }: AccountForm): View {
  return html`<${Layout} title="Sign in" narrow=${true}>
    <h1>Sign in</h1>
    <${ErrorBox} message=${error} />
    <form class="card" method="post" action="/dashboard/sign-in">
      <input type="hidden" name=${CSRF_FIELD} value=${formToken} />
      <input type="hidden" name="next" value=${next} />
      <label for="email">Email</label>
      <input id="email" type="email" name="email" autocomplete="username" required value=${email ?? ''} />
      <label for="password">Password</label>
      <input id="password" type="password" name="password" autocomplete="current-password" required />
      <div class="actions"><button type="submit">Sign in</button></div>
    </form>
    <p class="muted">New here? <a href=${`/dashboard/sign-up?${new URLSearchParams({ next })}`}>Create an account</a>; it comes with a workspace and this month's free credits.</p>
  <//>`;
}

export function SignUpPage({ formToken, next, email, name, error }: AccountForm): View {
  return html`<${Layout} title="Create an account" narrow=${true}>
    <h1>Create an account</h1>
    <${ErrorBox} message=${error} />
    <form class="card" method="post" action="/dashboard/sign-up">
      <input type="hidden" name=${CSRF_FIELD} value=${formToken} />
      <input type="hidden" name="next" value=${next} />
      <label for="name">Name</label>
      <input id="name" type="text" name="name" autocomplete="name" value=${name ?? ''} />
      <label for="email">Email</label>
      <input id="email" type="email" name="email" autocomplete="username" required value=${email ?? ''} />
      <label for="password">Password <span class="muted">(at least ${PASSWORD_MIN_LENGTH} characters)</span></label>
      <input id="password" type="password" name="password" autocomplete="new-password" required minlength=${PASSWORD_MIN_LENGTH} />
      <div class="actions"><button type="submit">Create account</button></div>
    </form>
    <p class="muted">Already have an account? <a href=${`/dashboard/sign-in?${new URLSearchParams({ next })}`}>Sign in</a>.</p>
  <//>`;
}

/** A refusal page: a stale or cross-site form, an unknown page, a workspace the person is not a member of. */
export function MessagePage({ title, message, signedIn }: { title: string; message: string; signedIn?: Parameters<typeof Layout>[0]['signedIn'] }): View {
  return html`<${Layout} title=${title} signedIn=${signedIn} narrow=${!signedIn}>
    <h1>${title}</h1>
    <p>${message}</p>
    <p><a href="/dashboard">Back to the dashboard</a></p>
  <//>`;
}
