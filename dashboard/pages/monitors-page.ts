import type { MemberWorkspace } from '../../adapters/people/person-store.ts';
import type { Monitor, MonitorResult, MonitorRun } from '../../adapters/shapes/monitor-shapes.ts';
import { html, type View } from '../html.ts';
import { Layout } from '../layout.ts';
import type { SignedIn } from '../signed-in.ts';
import { formatCredits, formatDate } from './format.ts';

function nav(workspace: MemberWorkspace) {
  return { id: workspace.id, name: workspace.name, current: 'monitors' as const };
}

/** A target in one line: its kind and what it names (`search: rust -java`). */
function targetSummary(target: Record<string, unknown>): string {
  const { kind, ...rest } = target;
  const named = Object.values(rest).filter((value) => typeof value === 'string' || typeof value === 'number');
  return `${String(kind)}${named.length ? `: ${named.join(' ')}` : ''}`;
}

export function MonitorsPage({ signedIn, workspace, monitors }: { signedIn: SignedIn; workspace: MemberWorkspace; monitors: readonly Monitor[] }): View {
  return html`<${Layout} title="Monitors" signedIn=${signedIn} workspace=${nav(workspace)}>
    <h1>Monitors</h1>
    <p class="muted">Saved queries that report only what is new. Create and change them through the API (<code>POST /v1/monitors</code>, or the MCP tool <code>create_monitor</code>); their runs and results are shown here.</p>
    ${monitors.length === 0
      ? html`<p class="muted">No monitors yet.</p>`
      : html`<table id="monitors">
          <thead><tr><th>Name</th><th>Target</th><th>Schedule</th><th>Status</th><th>Last run</th><th>Next run</th></tr></thead>
          <tbody>
            ${monitors.map(
              (monitor) => html`<tr>
                <td><a href=${`/dashboard/workspaces/${workspace.id}/monitors/${monitor.id}`}>${monitor.name}</a></td>
                <td class="mono">${targetSummary(monitor.target)}</td>
                <td>${monitor.schedule}</td>
                <td><span class=${`badge ${monitor.status}`}>${monitor.status}</span></td>
                <td>${formatDate(monitor.lastRunAt, 'never')}</td>
                <td>${formatDate(monitor.nextRunAt)}</td>
              </tr>`,
            )}
          </tbody>
        </table>`}
  <//>`;
}

export function MonitorPage({
  signedIn,
  workspace,
  monitor,
  runs,
  results,
}: {
  signedIn: SignedIn;
  workspace: MemberWorkspace;
  monitor: Monitor;
  runs: readonly MonitorRun[];
  results: readonly MonitorResult[];
}): View {
  return html`<${Layout} title=${monitor.name} signedIn=${signedIn} workspace=${nav(workspace)}>
    <p><a href=${`/dashboard/workspaces/${workspace.id}/monitors`}>← Monitors</a></p>
    <h1>${monitor.name}</h1>
    <p><span class=${`badge ${monitor.status}`}>${monitor.status}</span> <span class="mono">${targetSummary(monitor.target)}</span> · ${monitor.schedule} · sources ${monitor.sources.join(', ')}${monitor.webhookId ? html` · delivers to <a href=${`/dashboard/workspaces/${workspace.id}/webhooks?webhookId=${monitor.webhookId}`}>its webhook</a>` : null}</p>
    <h2>Runs</h2>
    ${runs.length === 0
      ? html`<p class="muted">No runs yet.</p>`
      : html`<table id="runs">
          <thead><tr><th>Queued</th><th>Status</th><th>Finished</th><th>Found</th><th>New</th><th>Credits</th><th>Note</th></tr></thead>
          <tbody>
            ${runs.map(
              (run) => html`<tr>
                <td>${formatDate(run.createdAt)}</td>
                <td><span class=${`badge ${run.status}`}>${run.status}</span></td>
                <td>${formatDate(run.finishedAt)}</td>
                <td>${run.resultsFound}</td>
                <td>${run.newResults}</td>
                <td>${formatCredits(run.creditsUsed)}</td>
                <td>${run.errorSummary ?? ''}</td>
              </tr>`,
            )}
          </tbody>
        </table>`}
    <h2>Results</h2>
    ${results.length === 0
      ? html`<p class="muted">Nothing new found yet (the first run records what exists as the baseline).</p>`
      : html`<table id="results">
          <thead><tr><th>First seen</th><th>Source</th><th>Item</th><th>Author</th></tr></thead>
          <tbody>
            ${results.map(
              (result) => html`<tr>
                <td>${formatDate(result.firstSeenAt)}</td>
                <td>${result.source}${result.communityName ? ` · r/${result.communityName}` : ''}</td>
                <td><a href=${result.url} rel="noreferrer noopener">${result.title ?? (result.body ?? result.url).slice(0, 140)}</a></td>
                <td>${result.authorHandle ?? ''}</td>
              </tr>`,
            )}
          </tbody>
        </table>`}
  <//>`;
}
