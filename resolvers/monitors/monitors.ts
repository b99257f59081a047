import { defaultSources, type MonitorTarget } from '../../adapters/monitors/monitor-targets.ts';
import type { MonitorPatch } from '../../adapters/monitors/monitor-service.ts';
import type { MonitorSchedule } from '../../adapters/shapes/monitor-shapes.ts';
import { workspaceOf, type RequestContext } from '../../core/request-context.ts';

export function createMonitor(
  args: { name: string; target: Record<string, unknown>; sources?: string[]; schedule: MonitorSchedule; webhookId?: string | null; backfill: number },
  ctx: RequestContext,
) {
  return ctx.deps.monitors.create(workspaceOf(ctx), { ...args, webhookId: args.webhookId ?? null });
}

export function updateMonitor(args: MonitorPatch & { id: string }, ctx: RequestContext) {
  const { id, ...patch } = args;
  return ctx.deps.monitors.update(workspaceOf(ctx), id, patch);
}

export function getMonitor(args: { id: string }, ctx: RequestContext) {
  return ctx.deps.monitors.get(workspaceOf(ctx), args.id);
}

export function listMonitors(args: { limit: number }, ctx: RequestContext) {
  return ctx.deps.monitors.list(workspaceOf(ctx), args.limit);
}

export function deleteMonitor(args: { id: string }, ctx: RequestContext) {
  return ctx.deps.monitors.remove(workspaceOf(ctx), args.id);
}

export function listMonitorRuns(args: { id: string; limit: number }, ctx: RequestContext) {
  return ctx.deps.monitors.runs(workspaceOf(ctx), args.id, args.limit);
}

export function listMonitorResults(args: { id: string; limit: number }, ctx: RequestContext) {
  return ctx.deps.monitors.results(workspaceOf(ctx), args.id, args.limit);
}

export function runMonitor(args: { id: string }, ctx: RequestContext) {
  return ctx.deps.monitors.runNow(workspaceOf(ctx), args.id);
}

/** The platforms a create or change of a monitor makes it read, as the service resolves its sources. */
export async function platformsOfMonitorChange(args: Record<string, unknown>, ctx: RequestContext): Promise<readonly string[]> {
  const target = args.target as MonitorTarget | undefined;
  const sources = (args.sources as string[] | undefined) ?? (target ? defaultSources(target) : []);
  // Attaching a webhook on a change sends it what the monitor reads or holds.
  const attached = typeof args.webhookId === 'string' && typeof args.id === 'string' ? await ctx.deps.monitors.platformsOf(workspaceOf(ctx), args.id) : [];
  return [...new Set([...sources, ...attached])];
}

/** The platforms of what a monitor's results may show. */
export function platformsOfMonitorResults(args: Record<string, unknown>, ctx: RequestContext): Promise<readonly string[]> {
  return ctx.deps.monitors.platformsOf(workspaceOf(ctx), args.id as string);
}
