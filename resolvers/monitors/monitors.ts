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
