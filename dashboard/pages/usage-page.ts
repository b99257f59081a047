import type { Limits, LedgerEntry, Usage } from '../../adapters/billing/credits-service.ts';
import type { MemberWorkspace } from '../../adapters/people/person-store.ts';
import type { UsageCharge } from '../../adapters/shapes/account-shapes.ts';
import type { DaySpend } from '../daily-spend.ts';
import { html, type View } from '../html.ts';
import { Layout } from '../layout.ts';
import type { SignedIn } from '../signed-in.ts';
import { formatCredits, formatDate } from './format.ts';
import { SpendChart } from './spend-chart.ts';

export interface UsageView {
  signedIn: SignedIn;
  workspace: MemberWorkspace;
  usage: Usage;
  limits: Limits;
  days: readonly DaySpend[];
  charges: readonly UsageCharge[];
  ledger: readonly LedgerEntry[];
}

function Figure({ label, value, note }: { label: string; value: string; note?: string }): View {
  return html`<div class="card"><div class="muted">${label}</div><div class="figure">${value}</div>${note ? html`<div class="muted">${note}</div>` : null}</div>`;
}

export function UsagePage({ signedIn, workspace, usage, limits, days, charges, ledger }: UsageView): View {
  const grant = usage.freeGrant;
  return html`<${Layout} title="Usage" signedIn=${signedIn} workspace=${{ id: workspace.id, name: workspace.name, current: 'usage' }}>
    <h1>Usage</h1>
    ${usage.spendingPaused ? html`<div class="error" role="alert">Spending is paused while a refund or payment dispute is resolved: billed calls get 402, free calls still work.</div>` : null}
    <div class="grid" id="usage-figures">
      <${Figure} label="Balance" value=${formatCredits(usage.balance)} note="credits held" />
      <${Figure} label="Reserved" value=${formatCredits(usage.reserved)} note="held by calls in flight" />
      <${Figure} label="Available" value=${formatCredits(usage.available)} note="balance minus reserved" />
      <${Figure}
        label="Free grant"
        value=${grant ? `${formatCredits(grant.remaining)} / ${formatCredits(grant.granted)}` : 'none'}
        note=${grant ? `resets ${formatDate(grant.resetsAt)}` : "only each person's oldest workspace receives it"}
      />
    </div>
    <h2>Tier and limits</h2>
    <table id="limits">
      <tbody>
        <tr><th>Tier</th><td>${limits.tier}</td></tr>
        <tr><th>Rate limit</th><td>${formatCredits(limits.rateLimitPerMinute)} weighted requests per minute</td></tr>
        <tr><th>Monitors</th><td>up to ${limits.maxMonitors}${limits.hourlySchedules ? ', hourly schedules allowed' : ', daily and weekly schedules'}</td></tr>
        <tr><th>Webhooks</th><td>up to ${limits.maxWebhooks}</td></tr>
      </tbody>
    </table>
    <h2>Credits spent per day (last ${days.length} days, UTC)</h2>
    <div class="card"><${SpendChart} days=${days} /></div>
    <h2>How credits are added</h2>
    <p>Purchases are recorded by the service's operator, not on this page. Ask your operator to add credits to workspace <code>${workspace.id}</code>; they run <code>npm run admin -- credits:purchase --workspace ${workspace.id} --usd AMOUNT --credits N</code>. Net purchases raise the tier (from $5, $100 and $500).</p>
    <h2>Recent charges</h2>
    ${charges.length === 0
      ? html`<p class="muted">No charges in this period.</p>`
      : html`<table id="charges">
          <thead><tr><th>When</th><th>Operation</th><th>Credits</th><th>Request id</th></tr></thead>
          <tbody>
            ${charges.map((charge) => html`<tr><td>${formatDate(charge.chargedAt)}</td><td class="mono">${charge.operationId}</td><td>${formatCredits(charge.credits)}</td><td class="mono">${charge.requestId}</td></tr>`)}
          </tbody>
        </table>`}
    <h2>Balance ledger</h2>
    <table id="ledger">
      <thead><tr><th>When</th><th>Entry</th><th>Credits</th><th>Free / bought</th><th>Note</th></tr></thead>
      <tbody>
        ${ledger.map(
          (entry) => html`<tr>
            <td>${formatDate(entry.createdAt)}</td>
            <td>${entry.kind.replace('_', ' ')}</td>
            <td>${entry.credits > 0 ? '+' : ''}${formatCredits(entry.credits)}</td>
            <td>${formatCredits(entry.freeCredits)} / ${formatCredits(entry.boughtCredits)}</td>
            <td>${entry.note ?? ''}${entry.usdCents ? ` ($${(entry.usdCents / 100).toFixed(2)})` : ''}</td>
          </tr>`,
        )}
      </tbody>
    </table>
  <//>`;
}
