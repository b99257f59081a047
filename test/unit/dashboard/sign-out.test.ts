import type { IncomingMessage } from 'node:http';
import { describe, expect, it, vi } from 'vitest';
import type { PersonStore } from '../../../adapters/people/person-store.ts';
import { accountRoutes } from '../../../dashboard/account-routes.ts';
import type { DashboardDeps } from '../../../dashboard/dashboard-deps.ts';
import type { DashboardRequest } from '../../../dashboard/dashboard-http.ts';
import { sessionCsrfToken } from '../../../dashboard/csrf.ts';

function signOutRequest(token: string): DashboardRequest {
  return {
    method: 'POST',
    url: new URL('http://localhost/dashboard/sign-out'),
    headers: { cookie: `svc_session=${token}` },
    form: new URLSearchParams({ csrf: sessionCsrfToken(token) }),
    address: '127.0.0.1',
    secure: false,
    incoming: {} as IncomingMessage,
  };
}

describe('sign-out', () => {
  it('clears the session cookie and answers the redirect even when ending the authorization server session fails', async () => {
    const people = {
      session: vi.fn(async () => ({ person: { id: 'p1', email: 'a@example.com' } })),
      endSession: vi.fn(async () => {}),
    } as unknown as PersonStore;
    const endOAuthSession = vi.fn(async () => {
      throw new Error('database unavailable');
    });
    const routes = accountRoutes({ people, endOAuthSession } as unknown as DashboardDeps);
    const response = await routes.signOut(signOutRequest('tok'));
    expect(endOAuthSession).toHaveBeenCalledOnce();
    expect(people.endSession).toHaveBeenCalledWith('tok');
    expect([response.status, response.headers.location]).toEqual([303, '/dashboard/sign-in']);
    expect(String(response.headers['set-cookie'])).toMatch(/^svc_session=;.*Max-Age=0/i);
  });
});
