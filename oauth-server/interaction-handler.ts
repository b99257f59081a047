import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import { readBody } from '../core/read-body.ts';
import { ConnectionLimitReached, type ConnectionStore } from '../adapters/oauth/connection-store.ts';
import { CONNECTION_SCOPES, grants, isScope, type Scope } from '../adapters/identity/scopes.ts';
import { approvalPage, messagePage, PAGE_HEADERS } from './approval-page.ts';
import type { ApprovalPeople } from './approval-people.ts';
import { INTERACTION_PREFIX } from './authorization-server.ts';

const FORM_LIMIT_BYTES = 16 * 1024;

function sendHtml(res: ServerResponse, status: number, body: string, extra: Record<string, string> = {}): void {
  res.writeHead(status, { ...extra, ...PAGE_HEADERS });
  res.end(body);
}

/**
 * `/oauth/interaction/:uid`: the approval screen. GET shows it (after sign-in); POST approves or denies. Approving
 * creates the grant and the connection in one step, so the connection exists before the client holds any token.
 * Cross-site posts are refused by the authorization server itself: the interaction is bound to its SameSite cookie.
 */
export function createInteractionHandler(deps: { provider: Provider; resource: string; people: ApprovalPeople; connections: ConnectionStore }) {
  const { provider, people, connections } = deps;

  return async function handleInteraction(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    const uid = path.slice(INTERACTION_PREFIX.length);
    let details: Awaited<ReturnType<Provider['interactionDetails']>>;
    try {
      details = await provider.interactionDetails(req, res);
    } catch {
      return sendHtml(res, 400, messagePage('This sign-in has expired', 'Start again from your MCP client: it opens a fresh sign-in page.'));
    }
    if (details.uid !== uid) return sendHtml(res, 400, messagePage('This sign-in has expired', 'Start again from your MCP client.'));
    if (req.method !== 'GET' && req.method !== 'POST') {
      res.writeHead(405, { allow: 'GET, POST' });
      return void res.end();
    }
    const person = await people.signedIn(req);
    if (!person) {
      res.writeHead(303, { location: people.signInUrl(path) });
      return void res.end();
    }
    const clientId = String(details.params.client_id);
    const client = await provider.Client.find(clientId);
    if (!client) return sendHtml(res, 400, messagePage('Unknown client', 'This client is no longer registered. Start again from your MCP client.'));
    const clientName = client.clientName ?? new URL(String(details.params.redirect_uri)).host;
    const workspaces = await people.workspacesOf(person.personId);
    if (workspaces.length === 0) return sendHtml(res, 403, messagePage('No workspace to connect', 'You are not a member of any workspace.'));
    const view = {
      action: path,
      clientName,
      clientId,
      redirectHost: new URL(String(details.params.redirect_uri)).host,
      personEmail: person.email,
      workspaces,
    };
    if (req.method === 'GET') return sendHtml(res, 200, approvalPage(view));

    const body = await readBody(req, FORM_LIMIT_BYTES);
    // Closed, as the listener's own 413s: on keep-alive node would otherwise read and discard the declared body.
    if (body === undefined) return sendHtml(res, 413, messagePage('Request too large', 'The approval form is small; this was not it.'), { connection: 'close' });
    const form = new URLSearchParams(body);
    if (form.get('decision') !== 'approve') {
      return provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'The person declined to connect this client.' }, { mergeWithLastSubmission: false });
    }
    const workspaceId = form.get('workspaceId') ?? '';
    if (!workspaces.some((workspace) => workspace.id === workspaceId)) {
      return sendHtml(res, 400, approvalPage({ ...view, error: 'workspaceId: pick one of your workspaces.' }));
    }
    const scopes: Scope[] = [...CONNECTION_SCOPES];
    if (form.get('monitors') === 'on') scopes.push('monitors:write');
    if (form.get('webhooks') === 'on') scopes.push('webhooks:write');

    // The client's tokens carry what the person approved: the access ticked here is added to what the client asked
    // for (it asks for what the 401 challenge names), and all of it when it asked for none of ours. /mcp allows a
    // token only what both its scope and its connection grant.
    const asked = String(details.params.scope ?? '').split(' ').filter(Boolean);
    const added = asked.some(isScope) ? scopes.filter((scope) => !(CONNECTION_SCOPES as readonly Scope[]).includes(scope)) : scopes;
    const requested = [...new Set([...asked, ...added])];
    details.params.scope = requested.join(' ');
    await details.save(details.exp - Math.floor(Date.now() / 1000));

    const grant = new provider.Grant({ accountId: person.personId, clientId });
    grant.addResourceScope(deps.resource, scopes.join(' '));
    // Every requested scope is answered, granted or refused, so the authorization server does not ask again; ours are
    // resource scopes (of /mcp), never identity scopes.
    for (const scope of requested) {
      if (scope === 'offline_access') grant.addOIDCScope(scope);
      else grant.rejectOIDCScope(scope);
      if (!isScope(scope)) continue;
      if (grants(scopes, scope)) grant.addResourceScope(deps.resource, scope);
      else grant.rejectResourceScope(deps.resource, scope);
    }
    const grantId = await grant.save();
    try {
      await connections.create({ workspaceId, personId: person.personId, clientId, clientName, scopes, grantId });
    } catch (error) {
      if (!(error instanceof ConnectionLimitReached)) throw error;
      // Nothing of the refused approval stays; the same screen can approve once a connection is revoked.
      await grant.destroy();
      return sendHtml(res, 409, approvalPage({ ...view, error: `${error.message} Revoke a connection first, on the workspace's keys page (/dashboard/workspaces/${workspaceId}/keys), then approve again.` }));
    }
    return provider.interactionFinished(req, res, { login: { accountId: person.personId }, consent: { grantId } }, { mergeWithLastSubmission: false });
  };
}
