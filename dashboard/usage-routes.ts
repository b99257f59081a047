import type { DashboardDeps } from './dashboard-deps.ts';
import { page } from './dashboard-http.ts';
import { dailySpend, spendWindow } from './daily-spend.ts';
import { html } from './html.ts';
import { UsagePage } from './pages/usage-page.ts';
import { forMember, notFound } from './workspace-routes.ts';

/** Days the spend chart covers. */
export const CHART_DAYS = 30;
const RECENT = 25;

export function usageRoutes(deps: DashboardDeps) {
  const { credits, usage, clock } = deps;
  return {
    show: forMember(deps, async (_request, signedIn, workspace) => {
      const now = clock();
      const range = { workspaceId: workspace.id, ...spendWindow(now, CHART_DAYS) };
      const [account, limits, totals, charges, ledger] = await Promise.all([
        credits.usage(workspace.id, now),
        credits.limits(workspace.id),
        usage.totals(range),
        usage.page(range, RECENT, undefined),
        credits.ledger(workspace.id, { limit: RECENT }),
      ]);
      if (!account || !limits) return notFound(signedIn);
      return page(
        html`<${UsagePage} signedIn=${signedIn} workspace=${workspace} usage=${account} limits=${limits} days=${dailySpend(totals, now, CHART_DAYS)} charges=${charges.items} ledger=${ledger} />`,
      );
    }),
  };
}
