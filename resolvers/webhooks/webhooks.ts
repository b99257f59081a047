import type { WebhookPatch } from '../../adapters/webhooks/webhook-service.ts';
import { workspaceOf, type RequestContext } from '../../core/request-context.ts';

export function createWebhook(args: { name: string; url: string; events: string[] }, ctx: RequestContext) {
  return ctx.deps.webhooks.create(workspaceOf(ctx), args);
}

export function updateWebhook(args: WebhookPatch & { id: string }, ctx: RequestContext) {
  const { id, ...patch } = args;
  return ctx.deps.webhooks.update(workspaceOf(ctx), id, patch);
}

export function listWebhooks(args: { limit: number }, ctx: RequestContext) {
  return ctx.deps.webhooks.list(workspaceOf(ctx), args.limit);
}

export function getWebhook(args: { id: string }, ctx: RequestContext) {
  return ctx.deps.webhooks.get(workspaceOf(ctx), args.id);
}

export function deleteWebhook(args: { id: string }, ctx: RequestContext) {
  return ctx.deps.webhooks.remove(workspaceOf(ctx), args.id);
}

export function testWebhook(args: { id: string }, ctx: RequestContext) {
  return ctx.deps.webhooks.test(workspaceOf(ctx), args.id);
}

export function listWebhookDeliveries(args: { limit: number; webhookId?: string }, ctx: RequestContext) {
  return ctx.deps.webhooks.deliveries(workspaceOf(ctx), args);
}

export function getWebhookDelivery(args: { id: string }, ctx: RequestContext) {
  return ctx.deps.webhooks.delivery(workspaceOf(ctx), args.id);
}

export function redeliverWebhookDelivery(args: { id: string }, ctx: RequestContext) {
  return ctx.deps.webhooks.redeliver(workspaceOf(ctx), args.id);
}

/** A new `url` receives what the webhook's monitors send: the platforms they read. */
export async function platformsOfWebhookChange(args: Record<string, unknown>, ctx: RequestContext): Promise<readonly string[]> {
  return args.url === undefined ? [] : ctx.deps.monitors.platformsSentTo(workspaceOf(ctx), args.id as string);
}

/** A redelivery sends the delivery's payload again: the platform of its content. */
export function platformsOfDelivery(args: Record<string, unknown>, ctx: RequestContext): Promise<readonly string[]> {
  return ctx.deps.webhooks.deliveryPlatforms(workspaceOf(ctx), args.id as string);
}
