import { holdOfRun, type RunHold } from '../../adapters/monitors/monitor-runner.ts';
import { defaultSources, type MonitorSource, type MonitorTarget } from '../../adapters/monitors/monitor-targets.ts';
import { watchedAfter, type MonitorPatch } from '../../adapters/monitors/monitor-service.ts';
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

/** The hold of the baseline run a create queues, on its target and sources as the service resolves them. */
export function runOfCreate(args: Record<string, unknown>, ctx: RequestContext): RunHold {
  const target = args.target as MonitorTarget;
  return holdOfRun(target, (args.sources as MonitorSource[] | undefined) ?? defaultSources(target), ctx.deps.platforms);
}

/** The hold of the run a run-now queues, on what the monitor watches (no such monitor: 404, as the call). */
export async function runOfRunNow(args: Record<string, unknown>, ctx: RequestContext): Promise<RunHold> {
  const monitor = await ctx.deps.monitors.get(workspaceOf(ctx), args.id as string);
  return holdOfRun(monitor.target as MonitorTarget, monitor.sources as MonitorSource[], ctx.deps.platforms);
}

/**
 * The hold of the baseline run a change may queue: one that names `target` or `sources`, or resumes the monitor, and
 * leaves it active. Priced on what it will watch; undefined when it queues none.
 */
export async function runOfChange(args: Record<string, unknown>, ctx: RequestContext): Promise<RunHold | undefined> {
  const patch = args as MonitorPatch;
  if (!patch.target && !patch.sources && patch.status !== 'active') return undefined;
  const monitor = await ctx.deps.monitors.get(workspaceOf(ctx), args.id as string);
  const rewatches = Boolean(patch.target || patch.sources) || monitor.status !== 'active';
  if ((patch.status ?? monitor.status) !== 'active' || !rewatches) return undefined;
  const { target, sources } = watchedAfter(monitor, patch);
  return holdOfRun(target, sources as MonitorSource[], ctx.deps.platforms);
}
