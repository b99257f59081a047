import { ResourceError } from '../adapters/db/resource-error.ts';
import type { DashboardDeps } from './dashboard-deps.ts';
import { page } from './dashboard-http.ts';
import { html } from './html.ts';
import { MonitorPage, MonitorsPage } from './pages/monitors-page.ts';
import { WebhooksPage } from './pages/webhooks-page.ts';
import { forMember, notFound } from './workspace-routes.ts';

/** The spec's list ceiling: the pages show as much as one API call can. */
const LIST_LIMIT = 100;
const HISTORY_LIMIT = 25;

/** Monitors with their runs and results, webhooks with their deliveries: read-only views of the API's objects. */
export function activityRoutes(deps: DashboardDeps) {
  const { monitors, webhooks } = deps;
  return {
    monitors: forMember(deps, async (_request, signedIn, workspace) =>
      page(html`<${MonitorsPage} signedIn=${signedIn} workspace=${workspace} monitors=${await monitors.list(workspace.id, LIST_LIMIT)} />`),
    ),

    monitor: forMember(deps, async (_request, signedIn, workspace, params) => {
      try {
        const id = params.monitorId ?? '';
        const [monitor, runs, results] = await Promise.all([
          monitors.get(workspace.id, id),
          monitors.runs(workspace.id, id, HISTORY_LIMIT),
          monitors.results(workspace.id, id, HISTORY_LIMIT),
        ]);
        return page(html`<${MonitorPage} signedIn=${signedIn} workspace=${workspace} monitor=${monitor} runs=${runs} results=${results} />`);
      } catch (error) {
        if (error instanceof ResourceError && error.kind === 'not_found') return notFound(signedIn);
        throw error;
      }
    }),

    webhooks: forMember(deps, async (request, signedIn, workspace) => {
      const all = await webhooks.list(workspace.id, LIST_LIMIT);
      const selected = all.find((webhook) => webhook.id === request.url.searchParams.get('webhookId'));
      const deliveries = await webhooks.deliveries(workspace.id, { limit: LIST_LIMIT, ...(selected ? { webhookId: selected.id } : {}) });
      return page(html`<${WebhooksPage} signedIn=${signedIn} workspace=${workspace} webhooks=${all} deliveries=${deliveries} selected=${selected} />`);
    }),
  };
}
