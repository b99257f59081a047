import type { MemberWorkspace } from '../../adapters/people/person-store.ts';
import type { Webhook, WebhookDelivery } from '../../adapters/shapes/webhook-shapes.ts';
import { html, type View } from '../html.ts';
import { Layout } from '../layout.ts';
import type { SignedIn } from '../signed-in.ts';
import { formatDate } from './format.ts';

export function WebhooksPage({
  signedIn,
  workspace,
  webhooks,
  deliveries,
  selected,
}: {
  signedIn: SignedIn;
  workspace: MemberWorkspace;
  webhooks: readonly Webhook[];
  deliveries: readonly WebhookDelivery[];
  /** The webhook whose deliveries are shown; every webhook's when absent. */
  selected?: Webhook;
}): View {
  const names = new Map(webhooks.map((webhook) => [webhook.id, webhook.name]));
  const base = `/dashboard/workspaces/${workspace.id}/webhooks`;
  return html`<${Layout} title="Webhooks" signedIn=${signedIn} workspace=${{ id: workspace.id, name: workspace.name, current: 'webhooks' }}>
    <h1>Webhooks</h1>
    <p class="muted">Signed POSTs of monitor results (Standard Webhooks). Create them through the API (<code>POST /v1/webhooks</code>: the signing secret is returned once, there); every delivery attempt is listed here.</p>
    ${webhooks.length === 0
      ? html`<p class="muted">No webhooks yet.</p>`
      : html`<table id="webhooks">
          <thead><tr><th>Name</th><th>URL</th><th>Events</th><th>Status</th><th>Failures in a row</th><th></th></tr></thead>
          <tbody>
            ${webhooks.map(
              (webhook) => html`<tr>
                <td>${webhook.name}</td>
                <td class="mono">${webhook.url}</td>
                <td class="mono">${webhook.events.join(' ')}</td>
                <td><span class=${`badge ${webhook.status}`}>${webhook.status}</span>${webhook.disabledAt ? ` since ${formatDate(webhook.disabledAt)}` : ''}</td>
                <td>${webhook.failureCount}</td>
                <td><a href=${`${base}?webhookId=${webhook.id}`}>Deliveries</a></td>
              </tr>`,
            )}
          </tbody>
        </table>`}
    <h2>${selected ? html`Deliveries of “${selected.name}” <a class="muted" href=${base}>(show all)</a>` : 'Deliveries'}</h2>
    ${deliveries.length === 0
      ? html`<p class="muted">No deliveries yet.</p>`
      : html`<table id="deliveries">
          <thead><tr><th>Raised</th><th>Webhook</th><th>Event</th><th>Status</th><th>Attempts</th><th>Last answer</th><th>Delivered</th></tr></thead>
          <tbody>
            ${deliveries.map(
              (delivery) => html`<tr>
                <td>${formatDate(delivery.createdAt)}</td>
                <td>${names.get(delivery.webhookId) ?? delivery.webhookId}</td>
                <td class="mono">${delivery.eventType}<br /><span class="muted">${delivery.eventId}</span></td>
                <td><span class=${`badge ${delivery.status}`}>${delivery.status}</span></td>
                <td>${delivery.attempts}</td>
                <td>${delivery.lastStatusCode ?? ''} ${delivery.lastError ?? ''}</td>
                <td>${formatDate(delivery.deliveredAt)}</td>
              </tr>`,
            )}
          </tbody>
        </table>`}
  <//>`;
}
