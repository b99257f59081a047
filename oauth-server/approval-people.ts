import type { IncomingMessage } from 'node:http';

export interface SignedInPerson {
  personId: string;
  email: string;
}

/**
 * What the approval screen needs from the dashboard's people and sessions: who is signed in in this browser, where
 * to sign in and come back, and which workspaces that person may connect.
 */
export interface ApprovalPeople {
  signedIn(req: IncomingMessage): Promise<SignedInPerson | null>;
  signInUrl(returnTo: string): string;
  workspacesOf(personId: string): Promise<Array<{ id: string; name: string }>>;
}
